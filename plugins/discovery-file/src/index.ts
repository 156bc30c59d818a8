import { definePlugin } from '@swarm/plugin-sdk';
import { FileDiscoveryBackend } from './file-backend.js';

export { FileDiscoveryBackend } from './file-backend.js';
export { FileDiscovery } from './file-discovery.js';
export { parseFileContent } from './file-content.js';

export const plugin = definePlugin({
  name: '@swarm/discovery-file',
  version: '1.0.0',
  apiVersion: '^2.0.0',
  description: 'Discovery from a file of engine addresses, re-read every heartbeat: file://path',
  register(ctx) {
    ctx.discovery('file', { useFactory: () => new FileDiscoveryBackend() });
  },
});

export default plugin;
