import type { Cluster, ClusterEvent, Logger } from '@swarm/plugin-sdk';
import { checkBody } from './validation/check-body.js';
import { containerCreateBody } from './validation/engine-bodies.js';

/** How long the cluster's nodes must hold still (no engine connecting or leaving) before a warm-up placement. */
const QUIET_MS = 1_000;

/** The body `docker run -d` sends, in the shape the CLI gives it (its nested parts are checked too). */
const RUN_BODY = {
  Hostname: '',
  Image: 'swarm-warm-up',
  Cmd: ['true'],
  Env: ['A=1'],
  Labels: { warm: 'up' },
  ExposedPorts: { '80/tcp': {} },
  HostConfig: {
    Binds: null,
    NetworkMode: 'default',
    PortBindings: { '80/tcp': [{ HostIp: '', HostPort: '' }] },
    RestartPolicy: { Name: 'no', MaximumRetryCount: 0 },
    Memory: 0,
    CpuShares: 0,
    LogConfig: { Type: '', Config: {} },
  },
  NetworkingConfig: { EndpointsConfig: {} },
};

/** Engine lifecycle events (`engine_connect`, `engine_disconnect`, ...) change the nodes a placement sees. */
const changesNodes = (event: ClusterEvent): boolean => typeof event.Action === 'string' && event.Action.startsWith('engine_');

export interface WarmUp {
  close(): void;
}

/**
 * Work the first `docker run` after start-up would otherwise wait for, done while the manager is
 * quiet: the create body's check (its schema is compiled on first use), and a dry placement once
 * the nodes have held still, which builds the scheduler's node table for every node (also built
 * again for every node after the node list changed) and compiles the filters' and strategy's code.
 */
export function warmUp(cluster: Cluster, logger: Logger): WarmUp {
  checkBody(RUN_BODY, containerCreateBody);
  let timer: NodeJS.Timeout | undefined;
  const place = (): void => {
    timer = undefined;
    const started = performance.now();
    try {
      cluster.explain({ Image: RUN_BODY.Image, Cmd: RUN_BODY.Cmd });
      logger.debug({ ms: Math.round(performance.now() - started) }, 'warm-up placement');
    } catch (error) {
      logger.debug({ err: error instanceof Error ? error.message : String(error) }, 'warm-up placement failed');
    }
  };
  const later = (): void => {
    clearTimeout(timer);
    timer = setTimeout(place, QUIET_MS).unref();
  };
  const unsubscribe = cluster.subscribe((event) => {
    if (changesNodes(event)) later();
  });
  later();
  return {
    close: () => {
      clearTimeout(timer);
      unsubscribe();
    },
  };
}
