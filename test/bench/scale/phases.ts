import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import Docker from 'dockerode';
import { percentiles, type Percentiles } from './stats.js';

const IMAGE = 'busybox:local';
const COMMAND = ['sleep', '86400'];

export const clientFor = (port: number): Docker => new Docker({ host: '127.0.0.1', port, version: 'v1.41' });

async function timed(call: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await call();
  return performance.now() - started;
}

/** Runs `total` calls over `workers` concurrent clients; returns each call's latency and the wall time. */
async function concurrently(
  total: number,
  workers: number,
  port: number,
  call: (client: Docker, index: number) => Promise<unknown>,
): Promise<{ latencies: number[]; wallMs: number }> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: workers }, async () => {
      const client = clientFor(port);
      for (let index = next++; index < total; index = next++) latencies.push(await timed(() => call(client, index)));
    }),
  );
  return { latencies, wallMs: performance.now() - started };
}

interface SystemStatus {
  SystemStatus?: [string, string][] | null;
}

/** Healthy nodes according to the `└ Status` rows of Swarm classic's /info. */
export async function healthyNodes(client: Docker): Promise<number> {
  const info = (await client.info().catch(() => ({}))) as SystemStatus;
  return (info.SystemStatus ?? []).filter(([key, value]) => key.trim() === '└ Status' && value === 'Healthy').length;
}

/** Milliseconds from `startedAt` until /info shows `count` healthy nodes (or undefined after the timeout). */
export async function timeToHealthy(port: number, count: number, startedAt: number, timeoutMs: number): Promise<number | undefined> {
  const client = clientFor(port);
  while (performance.now() - startedAt < timeoutMs) {
    if ((await healthyNodes(client)) >= count) return performance.now() - startedAt;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return undefined;
}

export const infoLatency = async (port: number, runs: number): Promise<Percentiles> =>
  percentiles((await concurrently(runs, 1, port, (client) => client.info())).latencies);

/** A plain HTTP server, in a process of its own, answering every request with one file's bytes. */
const REPLAY_SERVER = `
const { readFileSync } = require('node:fs');
const answer = readFileSync(process.argv[1]);
const server = require('node:http').createServer((request, response) => {
  response.writeHead(200, { 'content-type': 'application/json', 'content-length': answer.length });
  response.end(answer);
});
server.listen(0, '127.0.0.1', () => process.stdout.write(server.address().port + '\\n'));
`;

/**
 * The same client and calls against a plain server (its own process, as the manager) that replays
 * the manager's last \`/info\` answer byte for byte: what the client itself (dockerode reading and
 * parsing megabytes) and the machine cost, measured right after the manager's phase.
 */
export async function infoReplayLatency(port: number, runs: number): Promise<Percentiles> {
  const answer = await new Promise<Buffer>((resolve, reject) => {
    get({ host: '127.0.0.1', port, path: '/v1.41/info' }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve(Buffer.concat(chunks)));
      response.on('error', reject);
    }).on('error', reject);
  });
  const file = join(mkdtempSync(join(tmpdir(), 'swarm-info-replay-')), 'info.json');
  writeFileSync(file, answer);
  const replay = spawn(process.execPath, ['-e', REPLAY_SERVER, file], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const listening = once(replay.stdout, 'data') as Promise<[Buffer]>;
    const exited = once(replay, 'exit').then(([code]) => Promise.reject(new Error(`the replay server exited (${String(code)})`)));
    const [line] = await Promise.race([listening, exited]);
    return await infoLatency(Number(line.toString().trim()), runs);
  } finally {
    replay.kill();
    rmSync(dirname(file), { recursive: true, force: true });
  }
}

export interface ListLatency {
  /** Until the first bytes of the body arrived (raw HTTP, nothing parsed). */
  firstByte: Percentiles;
  /** The whole list as a client has it: dockerode, parsed. */
  whole: Percentiles;
}

/** Milliseconds until the first body bytes of `GET path` arrived; the rest is read and dropped. */
function firstByteMs(port: number, path: string): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const request = get({ host: '127.0.0.1', port, path }, (response) => {
      let first: number | undefined;
      response.on('data', () => (first ??= performance.now() - started));
      response.on('end', () => resolve(first ?? performance.now() - started));
      response.on('error', reject);
    });
    request.on('error', reject);
  });
}

/** `docker ps -a`: time to the first bytes, then (separate calls) the whole parsed list. */
export async function psLatency(port: number, runs: number): Promise<ListLatency> {
  const firstBytes: number[] = [];
  for (let run = 0; run < runs; run++) firstBytes.push(await firstByteMs(port, '/v1.41/containers/json?all=1'));
  const whole = (await concurrently(runs, 1, port, (client) => client.listContainers({ all: true }))).latencies;
  return { firstByte: percentiles(firstBytes), whole: percentiles(whole) };
}

/** `docker run -d` as the CLI does it: create, then start. */
export async function runLatency(port: number, runs: number, workers: number): Promise<Percentiles> {
  const { latencies } = await concurrently(runs, workers, port, async (client) => {
    const container = await client.createContainer({ Image: IMAGE, Cmd: COMMAND });
    await container.start();
  });
  return percentiles(latencies);
}

export interface Throughput {
  perSecond: number;
  latency: Percentiles;
}

export async function createThroughput(port: number, creates: number, workers: number): Promise<Throughput> {
  const { latencies, wallMs } = await concurrently(creates, workers, port, (client) =>
    client.createContainer({ Image: IMAGE, Cmd: COMMAND }),
  );
  return { perSecond: (creates / wallMs) * 1000, latency: percentiles(latencies) };
}
