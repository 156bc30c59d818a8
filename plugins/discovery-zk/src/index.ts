import { definePlugin } from '@swarm/plugin-sdk';
import { ZkDiscoveryBackend } from './zk-backend.js';

export { ZkDiscoveryBackend } from './zk-backend.js';

export const plugin = definePlugin({
  name: '@swarm/discovery-zk',
  version: '1.0.0',
  apiVersion: '^2.0.0',
  description: 'zk://h1:p,h2:p/prefix discovery with ephemeral entries, watches and leader election',
  register(ctx) {
    ctx.discovery('zk', { useFactory: () => new ZkDiscoveryBackend() });
  },
});

export default plugin;
