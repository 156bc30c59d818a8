import type { Logger } from '@swarm/plugin-sdk';
import { silentLogger } from '../logging/silent-logger.js';
// The API server is imported when started: embedding hosts without it never load it.
import type { ApiServer } from '../api/index.js';
import type { SwarmConfigInput } from '../config/input.js';
import type { ConfigLayer } from '../config/layers.js';
import { resolveConfig, type ResolvedConfig } from '../config/resolve.js';
import { validateConfigShape } from '../config/schema.js';
import { buildDeployment, requireDiscovery } from '../deployment/build-deployment.js';
import { prepareReplication } from '../replication/index.js';
import { readinessChecks } from './readiness-checks.js';
import { TypedEvents } from '../util/typed-events.js';
import { SWARM_VERSION } from '../version.js';
import { Defaults } from '../config/defaults.js';
import type { CallMarks } from '../plugins/watchdog/call-marks.js';
import type { StartOptions, Swarm, SwarmEvents } from './swarm.js';

export interface CreateSwarmOptions {
  /** Folder plugins named in the config resolve from (default: the current directory). */
  readonly configDir?: string;
  /** Default: a silent logger. */
  readonly logger?: Logger;
}

/** Build a Swarm from already resolved config (used by `createSwarm` and the CLI). */
export async function createSwarmFromResolved(
  resolved: ResolvedConfig,
  options: { configDir: string; logger: Logger; marks?: CallMarks },
): Promise<Swarm> {
  const deployment = await buildDeployment(resolved, options);
  const replication = prepareReplication(deployment, resolved.config, options.logger);
  const events = new TypedEvents<SwarmEvents>();
  let api: ApiServer | undefined;
  let unsubscribe: (() => void) | undefined;
  let running = false;
  let stopping = false;

  const start = async (startOptions: StartOptions = {}): Promise<void> => {
    if (running) return;
    requireDiscovery(resolved, deployment.providers);
    const cluster = deployment.cluster();
    unsubscribe = cluster.subscribe((event) => events.emit('event', event));
    running = true;
    stopping = false;
    try {
      replication?.start();
      // The API listens while the cluster still connects to its engines, as Swarm classic.
      const apiStarting = startOptions.api
        ? import('./start-api.js')
            .then(({ startApi }) =>
              startApi({
                cluster,
                scheduler: deployment.scheduler(),
                settings: resolved.config.api,
                logger: options.logger,
                version: SWARM_VERSION,
                role: replication,
                readiness: readinessChecks({
                  deployment,
                  replication,
                  stopping: () => stopping,
                  minNodes: resolved.config.api.readyMinNodes ?? Defaults.readyMinNodes,
                }),
                deployment,
                configDir: options.configDir,
              }),
            )
            .then((server) => {
              api = server;
              events.emit('listening', { addresses: server.addresses });
            })
        : undefined;
      await Promise.all([apiStarting, cluster.start()]);
    } catch (error) {
      await stop();
      throw error;
    }
    events.emit('started', { addresses: api?.addresses ?? [] });
  };

  const stop = async (): Promise<void> => {
    if (!running) return;
    running = false;
    stopping = true;
    unsubscribe?.();
    const server = api;
    api = undefined;
    // leadership first, so a replica takes over now rather than after the requests here finish
    await replication?.resign();
    await server?.close(resolved.config.api.shutdownTimeout * 1000);
    await replication?.stop();
    await deployment.cluster().stop();
    await deployment.openedDiscovery()?.close();
    events.emit('stopped');
  };

  return {
    config: resolved.config,
    deployment,
    get cluster() {
      return deployment.cluster();
    },
    get scheduler() {
      return deployment.scheduler();
    },
    get addresses() {
      return api?.addresses ?? [];
    },
    start,
    stop,
    on: (event, listener) => events.on(event, listener),
  };
}

/**
 * Embed swarm: build a deployment from a config object in the config file's shape. Plugins load
 * and register here; the cluster starts with `start()`.
 *
 * @example
 * ```js
 * import { createSwarm } from '@swarm/core';
 *
 * const swarm = await createSwarm({
 *   cluster: { discovery: 'nodes://127.0.0.2:2375,127.0.0.3:2375' },
 *   scheduler: { strategy: 'binpack' },
 *   api: { hosts: ['tcp://127.0.0.1:4000'] },
 * });
 * swarm.on('event', (event) => console.log(event.node?.Name, event.Action, event.id));
 * await swarm.start({ api: true }); // `docker -H tcp://127.0.0.1:4000 run ...` now works
 * console.log(swarm.cluster.nodes().map((node) => node.name));
 * console.log(swarm.scheduler.explain(swarm.scheduler.request({ Image: 'busybox' }), swarm.cluster.nodes()).summary);
 * await swarm.stop();
 * ```
 */
export async function createSwarm(config: SwarmConfigInput, options: CreateSwarmOptions = {}): Promise<Swarm> {
  const input = validateConfigShape(config, 'createSwarm() config');
  const layers: ConfigLayer[] = [{ origin: 'object', input }];
  return createSwarmFromResolved(resolveConfig(layers), {
    configDir: options.configDir ?? process.cwd(),
    logger: options.logger ?? silentLogger,
  });
}
