import { definePlugin } from '@swarm/plugin-sdk';
import { EtcdDiscoveryBackend } from './etcd-backend.js';

export { EtcdDiscoveryBackend } from './etcd-backend.js';

export const plugin = definePlugin({
  name: '@swarm/discovery-etcd',
  version: '1.0.0',
  apiVersion: '^2.0.0',
  description: 'etcd://h1:p,h2:p/prefix discovery (etcd v3) with leased entries, watches and leader election',
  register(ctx) {
    ctx.discovery('etcd', { useFactory: () => new EtcdDiscoveryBackend() });
  },
});

export default plugin;
