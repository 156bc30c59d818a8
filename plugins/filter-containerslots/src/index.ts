import { definePlugin } from '@swarm/plugin-sdk';
import { ContainerSlotsFilter } from './containerslots-filter.js';

export { ContainerSlotsFilter };

/** Caps containers per node with the engine label containerslots=N (Swarm classic's containerslots filter). */
export const plugin = definePlugin({
  name: '@swarm/filter-containerslots',
  version: '1.0.0',
  apiVersion: '^2.0.0',
  description: "Caps containers per node with the engine label containerslots=N (Swarm classic's containerslots filter).",
  register(context) {
    context.filter('containerslots', { useFactory: () => new ContainerSlotsFilter() });
  },
});

export default plugin;
