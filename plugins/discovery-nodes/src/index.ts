import { definePlugin } from '@swarm/plugin-sdk';
import { NodesDiscoveryBackend } from './nodes-backend.js';

export { NodesDiscoveryBackend } from './nodes-backend.js';
export { StaticDiscovery } from './static-discovery.js';

export const plugin = definePlugin({
  name: '@swarm/discovery-nodes',
  version: '1.0.0',
  apiVersion: '^2.0.0',
  description: 'Discovery of a fixed engine list: nodes://h1:p,h2:p (ranges allowed)',
  register(ctx) {
    ctx.discovery('nodes', { useFactory: () => new NodesDiscoveryBackend() });
  },
});

export default plugin;
