import { definePlugin } from '@swarm/plugin-sdk';
import { createConstraintFilter } from './constraint-filter.js';

export { createConstraintFilter };

/** Places containers on nodes whose name, ID or engine labels match expressions (Swarm classic's constraint filter). */
export const plugin = definePlugin({
  name: '@swarm/filter-constraint',
  version: '1.0.0',
  apiVersion: '^2.0.0',
  description: "Places containers on nodes whose name, ID or engine labels match expressions (Swarm classic's constraint filter).",
  register(context) {
    context.filter('constraint', { useFactory: () => createConstraintFilter() });
  },
});

export default plugin;
