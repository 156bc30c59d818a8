import { definePlugin } from '@swarm/plugin-sdk';
import { UiExtension } from './ui-extension.js';

export { UiExtension } from './ui-extension.js';
export type * from './wire.js';

export const plugin = definePlugin({
  name: '@swarm/web-ui',
  version: '1.0.0',
  apiVersion: '^2.0.0',
  description: 'Web extension "ui": a live view of the cluster at /swarm/ui/ (swarm manage --ui)',
  register(ctx) {
    ctx.web('ui', { useFactory: () => new UiExtension() });
  },
});

export default plugin;
