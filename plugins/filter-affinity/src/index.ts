import { definePlugin } from '@swarm/plugin-sdk';
import { createAffinityFilter } from './affinity-filter.js';

export { createAffinityFilter };

/** Places containers next to (or away from) containers, images and container labels (Swarm classic's affinity filter). */
export const plugin = definePlugin({
  name: '@swarm/filter-affinity',
  version: '1.0.0',
  apiVersion: '^2.0.0',
  description: "Places containers next to (or away from) containers, images and container labels (Swarm classic's affinity filter).",
  register(context) {
    context.filter('affinity', { useFactory: () => createAffinityFilter() });
  },
});

export default plugin;
