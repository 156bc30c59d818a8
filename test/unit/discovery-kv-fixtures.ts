import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import zookeeper from 'node-zookeeper-client';
import { Etcd3 } from 'etcd3';
import type { DiscoveryBackend, DiscoveryEntry } from '@swarm/plugin-sdk';
import { EtcdDiscoveryBackend } from '@swarm/discovery-etcd';
import { ZkDiscoveryBackend } from '@swarm/discovery-zk';
import { startEtcd, startZooKeeper, type Service } from '../harness/services.js';

/** What the shared discovery and leadership suites need to know about one real store. */
export interface KvStore {
  readonly scheme: 'zk' | 'etcd';
  readonly backend: DiscoveryBackend;
  start(port: number): Promise<Service>;
  /** Raw access, bypassing the backend: every key under `path` with its value. */
  list(service: Service, path: string): Promise<Record<string, string>>;
  write(service: Service, key: string, value: string): Promise<void>;
}

export const zkStore: KvStore = {
  scheme: 'zk',
  backend: new ZkDiscoveryBackend(),
  start: startZooKeeper,
  list: (service, path) =>
    withZk(service, async (client) => {
      const children = await zkCall<string[]>((done) => client.getChildren(`/${path}`, done)).catch(() => [] as string[]);
      const result: Record<string, string> = {};
      for (const child of children) {
        const data = await zkCall<Buffer | undefined>((done) => client.getData(`/${path}/${child}`, done));
        result[`${path}/${child}`] = data?.toString() ?? '';
      }
      return result;
    }),
  write: (service, key, value) =>
    withZk(service, async (client) => {
      await zkCall((done) => client.mkdirp(`/${key}`, done));
      await zkCall((done) => client.setData(`/${key}`, Buffer.from(value), done));
    }),
};

export const etcdStore: KvStore = {
  scheme: 'etcd',
  backend: new EtcdDiscoveryBackend(),
  start: startEtcd,
  list: (service, path) => withEtcd(service, (client) => client.getAll().prefix(`${path}/`).strings()),
  write: (service, key, value) =>
    withEtcd(service, async (client) => {
      await client.put(key).value(value);
    }),
};

type ZkClient = ReturnType<typeof zookeeper.createClient>;

function zkCall<T = unknown>(operation: (done: (error: Error | null, result: T) => void) => void): Promise<T> {
  return new Promise((resolve, reject) => operation((error, result) => (error ? reject(error) : resolve(result))));
}

async function withZk<T>(service: Service, use: (client: ZkClient) => Promise<T>): Promise<T> {
  const client = zookeeper.createClient(service.addr, { sessionTimeout: 5000 });
  await new Promise<void>((resolve) => {
    client.once('connected', () => resolve());
    client.connect();
  });
  try {
    return await use(client);
  } finally {
    client.close();
  }
}

async function withEtcd<T>(service: Service, use: (client: Etcd3) => Promise<T>): Promise<T> {
  const client = new Etcd3({ hosts: `http://${service.addr}` });
  try {
    return await use(client);
  } finally {
    client.close();
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls `probe` until it returns true; fails with `what` after `timeoutMs`. */
export async function eventually(
  probe: () => boolean | Promise<boolean>,
  what: string | (() => string),
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await probe()) return;
    await sleep(50);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${typeof what === 'string' ? what : what()}`);
}

/** Collects what a watch reports. */
export class WatchLog {
  readonly sets: string[][] = [];
  readonly errors: Error[] = [];
  readonly onEntries = (entries: readonly DiscoveryEntry[]) => {
    this.sets.push(entries.map((entry) => entry.addr));
  };
  readonly onError = (error: Error) => {
    this.errors.push(error);
  };
  get latest(): string[] | undefined {
    return this.sets.at(-1);
  }
  sees(addrs: string[]): boolean {
    return JSON.stringify(this.latest) === JSON.stringify([...addrs].sort());
  }
}

const CHILD = fileURLToPath(new URL('./discovery-kv-child.mjs', import.meta.url));

/** A separate process using the backend (so it can die without closing its session). */
export interface StoreChild {
  readonly output: string[];
  kill(): Promise<void>;
  /** SIGSTOP: the process stays connected but silent, so the store expires its session or lease. */
  pause(): void;
  resume(): void;
}

/** `join <addr>` registers every second; `campaign <value>` runs for leader and prints elected/lost. */
export function startChild(store: KvStore, uri: string, ttl: number, mode: 'join' | 'campaign', value: string): StoreChild {
  const child: ChildProcess = spawn(process.execPath, [CHILD, store.scheme, uri, String(ttl), mode, value], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  child.stdout?.on('data', (chunk: Buffer) =>
    output.push(
      ...chunk
        .toString()
        .split('\n')
        .filter((line) => line !== ''),
    ),
  );
  child.stderr?.on('data', (chunk: Buffer) => output.push(`stderr: ${chunk.toString().trim()}`));
  child.on('exit', (code, signal) => output.push(`exited ${code ?? signal}`));
  return {
    output,
    pause: () => child.kill('SIGSTOP'),
    resume: () => child.kill('SIGCONT'),
    kill: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
        child.kill('SIGCONT');
      }),
  };
}
