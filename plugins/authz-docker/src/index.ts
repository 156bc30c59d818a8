import { definePlugin } from '@swarm/plugin-sdk';
import { createDockerAuthorizer } from './factory.js';

export { AUTHZ_IMPLEMENTS, createDockerAuthorizer } from './factory.js';
export { AUTHZ_REQUEST, AUTHZ_RESPONSE, DockerAuthorizer } from './docker-authorizer.js';
export {
  DOCKER_PLUGIN_DIRS,
  candidatePaths,
  locatePlugin,
  type DiscoveryDirs,
  type PluginEndpoint,
  type PluginTlsConfig,
} from './discovery.js';
export { DockerAuthzErrors } from './errors.js';
export { PLUGIN_MIME_TYPE } from './plugin-client.js';
export { MAX_BODY_SIZE, type AuthZRequest } from './wire-request.js';
export { MAX_BUFFER_SIZE } from './wire-response.js';

/** Docker's engine authorization plugins (AuthZPlugin.AuthZReq / AuthZRes) in front of the whole cluster. */
export const plugin = definePlugin({
  name: '@swarm/authz-docker',
  version: '1.0.0',
  apiVersion: '^2.1.0',
  description: "Asks a Docker engine authorization plugin (dockerd's --authorization-plugin protocol) about every request.",
  register(context) {
    context.authz('docker', { useValue: createDockerAuthorizer });
  },
});

export default plugin;
