import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createSwarm, type Swarm, type TlsInput } from '@swarm/core';
import type { ClusterEvent } from '@swarm/plugin-sdk';
import type { SwarmCluster } from '../../plugins/driver-swarm/src/swarm-cluster.js';

const run = promisify(execFile);

/** `docker -H <host> args...` with the real CLI; resolves with trimmed stdout. */
export async function docker(host: string, ...args: string[]): Promise<string> {
  const { stdout } = await run('docker', ['-H', host, ...args], { maxBuffer: 1 << 22 });
  return stdout.trim();
}

export interface ClusterSetup {
  options?: Record<string, string>;
  tls?: TlsInput;
  filters?: string[];
}

/**
 * A deployment built by the embedding API with the real scheduler pipeline and plugins; short
 * refresh intervals (1-2 s, unhealthy after 2 failures). Not started.
 */
export async function buildSwarm(discovery: string, setup: ClusterSetup = {}): Promise<{ swarm: Swarm; cluster: SwarmCluster }> {
  const swarm = await createSwarm({
    cluster: {
      driver: 'swarm',
      discovery,
      options: setup.options ?? {},
      heartbeat: 1,
      engineRefreshMinInterval: 1,
      engineRefreshMaxInterval: 2,
      engineFailureRetry: 2,
    },
    scheduler: { filters: setup.filters ?? ['health', 'constraint', 'affinity'], strategy: 'spread' },
    ...(setup.tls ? { tls: setup.tls } : {}),
  });
  // the driver's own class, loaded by the host from the package's build
  const cluster = swarm.cluster as SwarmCluster;
  if (cluster.driverName !== 'swarm') throw new Error(`expected the swarm driver, got ${cluster.driverName}`);
  return { swarm, cluster };
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

export function collectEvents(subscribe: (listener: (event: ClusterEvent) => void) => () => void): {
  events: ClusterEvent[];
  stop: () => void;
} {
  const events: ClusterEvent[] = [];
  const stop = subscribe((event) => events.push(event));
  return { events, stop };
}

/** Polls an engine's `/_ping` every 50 ms and remembers when it last started and stopped answering. */
export function watchAnswering(addr: string): { up?: number; down?: number; answering: () => boolean | undefined; stop: () => void } {
  const state: { up?: number; down?: number; answering: () => boolean | undefined; stop: () => void } = {
    answering: () => answering,
    stop: () => undefined,
  };
  let answering: boolean | undefined;
  let active = true;
  const poll = async () => {
    let ok: boolean;
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
