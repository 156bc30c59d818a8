import type { HTTPMethod } from 'find-my-way';
import { ApiRouter } from './router.js';
import { build, cancelBuild } from './handlers/build.js';
import { grpc, session } from './handlers/buildkit.js';
import { listContainers } from './handlers/container-list.js';
import { containerOperation, createContainer, removeContainer } from './handlers/containers.js';
import { getEvents } from './handlers/events.js';
import { execOperation } from './handlers/exec.js';
import { createImage, loadImage } from './handlers/image-transfer.js';
import { imageOperation, listImages, removeImage, saveImages, searchImages } from './handlers/images.js';
import { auth, commit, distributionInspect } from './handlers/misc.js';
import { createNetwork, listNetworks, networkOperation } from './handlers/networks.js';
import { createPlugin, listPlugins, pluginOperation, pluginPrivileges, pullPlugin, removePlugin } from './handlers/plugins.js';
import { healthz, readyz } from './handlers/health.js';
import { explain, metrics } from './handlers/swarm.js';
import { diskUsage, info, notSwarmMode, ping, prune, version } from './handlers/system.js';
import { swarmSubpath } from './handlers/web.js';
import { createVolume, listVolumes, volumeOperation } from './handlers/volumes.js';

// Docker's swarm-mode routes (Engine API 1.41), which an engine outside swarm mode answers with 503.
const SWARM_MODE_ROUTES: ReadonlyArray<readonly [HTTPMethod, string]> = [
  ['GET', '/swarm'],
  ['GET', '/swarm/unlockkey'],
  ...(['init', 'join', 'leave', 'update', 'unlock'] as const).map((operation) => ['POST', `/swarm/${operation}`] as const),
  ...(['services', 'secrets', 'configs'] as const).flatMap((resource) => [
    ['GET', `/${resource}`] as const,
    ['POST', `/${resource}/create`] as const,
    ['GET', `/${resource}/:id`] as const,
    ['DELETE', `/${resource}/:id`] as const,
    ['POST', `/${resource}/:id/update`] as const,
  ]),
  ['GET', '/services/:id/logs'],
  ['GET', '/nodes'],
  ['GET', '/nodes/:id'],
  ['DELETE', '/nodes/:id'],
  ['POST', '/nodes/:id/update'],
  ['GET', '/tasks'],
  ['GET', '/tasks/:id'],
  ['GET', '/tasks/:id/logs'],
];

/** Every route of the Docker API front, bare (a `/v1.NN` prefix is stripped before matching). */
export function buildRoutes(): ApiRouter {
  const router = new ApiRouter()
    .add(['GET', 'HEAD'], '/_ping', ping)
    .add('GET', '/version', version)
    .add('GET', '/info', info)
    .add('GET', '/events', getEvents)
    .add('GET', '/system/df', diskUsage)
    .add('POST', '/auth', auth)
    .add('POST', '/commit', commit)
    .add('POST', '/build', build)
    .add('POST', '/build/prune', prune('build'))
    .add('POST', '/build/cancel', cancelBuild)
    .add('POST', '/session', session)
    .add('POST', '/grpc', grpc)
    .add('GET', '/distribution/*', distributionInspect)

    .add('GET', '/containers/json', listContainers)
    .add('POST', '/containers/create', createContainer)
    .add('POST', '/containers/prune', prune('containers'))
    .add(['GET', 'HEAD', 'PUT', 'POST'], '/containers/*', containerOperation)
    .add('DELETE', '/containers/*', removeContainer)
    .add('POST', '/exec/:id/start', execOperation('start'))
    .add('POST', '/exec/:id/resize', execOperation('resize'))
    .add('GET', '/exec/:id/json', execOperation('json'))

    .add('GET', '/images/json', listImages)
    .add('GET', '/images/search', searchImages)
    .add('GET', '/images/get', saveImages)
    .add('POST', '/images/create', createImage)
    .add('POST', '/images/load', loadImage)
    .add('POST', '/images/prune', prune('images'))
    .add(['GET', 'POST'], '/images/*', imageOperation)
    .add('DELETE', '/images/*', removeImage)

    .add('GET', '/networks', listNetworks)
    .add('POST', '/networks/create', createNetwork)
    .add('POST', '/networks/prune', prune('networks'))
    .add(['GET', 'POST', 'DELETE'], '/networks/*', networkOperation)

    .add('GET', '/volumes', listVolumes)
    .add('POST', '/volumes/create', createVolume)
    .add('POST', '/volumes/prune', prune('volumes'))
    .add(['GET', 'DELETE'], '/volumes/*', volumeOperation)

    .add('GET', '/plugins', listPlugins)
    .add('GET', '/plugins/privileges', pluginPrivileges)
    .add('POST', '/plugins/pull', pullPlugin)
    .add('POST', '/plugins/create', createPlugin)
    .add(['GET', 'POST'], '/plugins/*', pluginOperation)
    .add('DELETE', '/plugins/*', removePlugin)

    .add('POST', '/_swarm/v1/explain', explain)
    .add(['GET', 'HEAD'], '/_swarm/metrics', metrics)
    .add(['GET', 'HEAD'], '/_swarm/healthz', healthz)
    .add(['GET', 'HEAD'], '/_swarm/readyz', readyz);
  for (const [method, path] of SWARM_MODE_ROUTES) router.add(method, path, notSwarmMode);
  // Any other /swarm/<name>/... names a web extension that is not served (mounted ones are matched first).
  router.add(['GET', 'HEAD', 'POST', 'PUT', 'DELETE'], '/swarm/*', swarmSubpath);
  return router;
}
