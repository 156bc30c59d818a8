import { definePlugin } from '@swarm/plugin-sdk';
import { HealthFilter } from './health-filter.js';

export { HealthFilter };

/** Only places containers on healthy nodes (Swarm classic's health filter). */
export const plugin = definePlugin({
  name: '@swarm/filter-health',
  version: '1.0.0',
  apiVersion: '^2.0.0',
  description: "Only places containers on healthy nodes (Swarm classic's health filter).",
  register(context) {
    context.filter('health', { useFactory: () => new HealthFilter() });
  },
});

export default plugin;
