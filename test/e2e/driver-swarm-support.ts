import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import {
  ErrorCodes,
  SwarmError,
  moveEnvDirectivesToLabels,
  requestedCpus,
  requestedMemory,
  swarmDirectives,
  type ClusterEvent,
  type ContainerConfig,
  type DeploymentConfig,
  type Discovery,
  type Logger,
  type Node,
  type Placement,
  type PlacementExplanation,
  type PlacementRequest,
  type Scheduler,
  type TlsFiles,
} from '@swarm/plugin-sdk';
import { SwarmCluster } from '@swarm/driver-swarm';

const run = promisify(execFile);

/** `docker -H <host> args...` with the real CLI; resolves with trimmed stdout. */
export async function docker(host: string, ...args: string[]): Promise<string> {
  const { stdout } = await run('docker', ['-H', host, ...args], { maxBuffer: 1 << 22 });
  return stdout.trim();
}

export const silentLogger: Logger = {
  level: 'silent',
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  child: () => silentLogger,
};

function fits(node: Node, request: PlacementRequest): boolean {
  return node.usedCpus() + request.cpus <= node.totalCpus() && node.usedMemory() + request.memory <= node.totalMemory();
}

function wantsNode(node: Node, config: ContainerConfig): boolean {
  return swarmDirectives(config, 'constraints').every((expression) => {
    const match = /^node==(.+)$/.exec(expression);
    return !match || match[1] === node.name;
  });
}

function hasImage(node: Node, config: ContainerConfig): boolean {
  return swarmDirectives(config, 'affinities').every((expression) => {
    const match = /^image==(.+)$/.exec(expression);
    return !match || node.image(match[1]!) !== undefined;
  });
}

/**
 * A small real placement rule for driver tests, independent of the filter plugins: healthy nodes
 * that fit, honour `node==` constraints and `image==` affinities, fewest containers first.
 */
export class FewestContainersScheduler implements Scheduler {
  readonly strategyName = 'spread';
  readonly filterNames = ['health', 'constraint', 'affinity'];

  request(config: ContainerConfig, name?: string): PlacementRequest {
    const moved = moveEnvDirectivesToLabels(config);
    return { config: moved, name, cpus: requestedCpus(moved), memory: requestedMemory(moved), soft: false };
  }

  select(request: PlacementRequest, nodes: readonly Node[]): Placement {
    const explanation = this.explain(request, nodes);
    if (explanation.error) throw new SwarmError(ErrorCodes.NO_NODE_AVAILABLE, explanation.error);
    const ranked = this.feasible(request, nodes).map((node, rank) => ({ node, score: rank }));
    return { ranked, explanation };
  }

  explain(request: PlacementRequest, nodes: readonly Node[]): PlacementExplanation {
    const feasible = this.feasible(request, nodes);
    return {
      strategy: this.strategyName,
      filters: this.filterNames,
      softDropped: false,
      nodes: [],
      chosen: feasible[0]?.name,
      summary: `${feasible.length}/${nodes.length} nodes are available`,
      ...(feasible.length === 0 ? { error: 'No healthy node available in the cluster' } : {}),
    };
  }

  private feasible(request: PlacementRequest, nodes: readonly Node[]): Node[] {
    return nodes
      .filter((node) => node.isHealthy() && fits(node, request) && wantsNode(node, request.config) && hasImage(node, request.config))
      .sort((a, b) => a.containers().length - b.containers().length);
  }
}

export interface ClusterSetup {
  options?: Record<string, string>;
  tls?: TlsFiles;
  refreshMin?: number;
  refreshMax?: number;
  failureRetry?: number;
}

export function deploymentConfig(discovery: string, setup: ClusterSetup = {}): DeploymentConfig {
  return {
    plugins: [],
    cluster: {
      driver: 'swarm',
      discovery,
      options: setup.options ?? {},
      discoveryOptions: {},
      heartbeat: 1,
      engineRefreshMinInterval: setup.refreshMin ?? 1,
      engineRefreshMaxInterval: setup.refreshMax ?? 2,
      engineFailureRetry: setup.failureRetry ?? 2,
      ...(setup.tls ? { tls: setup.tls } : {}),
    },
    scheduler: { filters: [], strategy: 'spread', strategyOptions: {} },
    api: { hosts: [], cors: false },
    replication: { enabled: false, ttl: 20 },
    logLevel: 'silent',
  };
}

export function newCluster(discovery: Discovery, uri: string, setup: ClusterSetup = {}): SwarmCluster {
  return new SwarmCluster(deploymentConfig(uri, setup), new FewestContainersScheduler(), discovery, silentLogger);
}

/** Poll `check` every 100 ms until it returns a value, or fail naming `what`. */
export async function eventually<T>(what: string, check: () => T | undefined | false, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Rows of `info().systemStatus` as a map for one node (`  └ Status` → value). */
export function nodeRows(rows: ReadonlyArray<readonly [string, string]>, nodeName: string): Map<string, string> {
  const start = rows.findIndex(([key]) => key === ` ${nodeName}`);
  const result = new Map<string, string>();
  if (start < 0) return result;
  for (const [key, value] of rows.slice(start + 1)) {
    if (!key.startsWith('  └ ')) break;
    result.set(key.slice(4), value);
  }
  return result;
}

export function collectEvents(subscribe: (listener: (event: ClusterEvent) => void) => () => void): { events: ClusterEvent[]; stop: () => void } {
  const events: ClusterEvent[] = [];
  const stop = subscribe((event) => events.push(event));
  return { events, stop };
}

/** Polls an engine's `/_ping` every 50 ms and remembers when it last started and stopped answering. */
export function watchAnswering(addr: string): { up?: number; down?: number; stop: () => void } {
  const state: { up?: number; down?: number; stop: () => void } = { stop: () => undefined };
  let answering: boolean | undefined;
  let active = true;
  const poll = async () => {
    let ok = false;
    try {
      ok = (await fetch(`http://${addr}/_ping`, { signal: AbortSignal.timeout(500) })).ok;
    } catch {
      ok = false;
    }
    if (ok !== answering) {
      if (answering !== undefined) state[ok ? 'up' : 'down'] = Date.now();
      answering = ok;
    }
    if (active) setTimeout(() => void poll(), 50);
  };
  void poll();
  state.stop = () => {
    active = false;
  };
  return state;
}
