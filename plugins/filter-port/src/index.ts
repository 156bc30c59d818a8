import { definePlugin } from '@swarm/plugin-sdk';
import { PortFilter } from './port-filter.js';

export { PortFilter };

/** Keeps containers off nodes where their host ports are taken (Swarm classic's port filter). */
export const plugin = definePlugin({
  name: '@swarm/filter-port',
  version: '1.0.0',
  apiVersion: '^2.0.0',
  description: "Keeps containers off nodes where their host ports are taken (Swarm classic's port filter).",
  register(context) {
    context.filter('port', { useFactory: () => new PortFilter() });
  },
});

export default plugin;
