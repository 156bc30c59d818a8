import { definePlugin } from '@swarm/plugin-sdk';
import { createWhitelistFilter } from './whitelist-filter.js';

export { createWhitelistFilter };

/** Restricts placement to |-separated node names (Swarm classic's whitelist filter). */
export const plugin = definePlugin({
  name: '@swarm/filter-whitelist',
  version: '1.0.0',
  apiVersion: '^2.0.0',
  description: "Restricts placement to |-separated node names (Swarm classic's whitelist filter).",
  register(context) {
    context.filter('whitelist', { useFactory: () => createWhitelistFilter() });
  },
});

export default plugin;
