import { CALL_KINDS, type CallKind } from '@swarm/core/hollow';
import { EngineClient } from './http-client.js';

/**
 * Measures the median latency (ms) of each call a hollow engine imitates, against any engine
 * (real or hollow). The hollow engine's default delays (default-delays.ts) come from this run
 * against a real dockerd here.
 *
 *   node test/bench/hollow/dist/measure-engine.js 127.0.0.96:2375 [rounds]
 */
const IMAGE = 'busybox:local';
const COMMAND = ['sh', '-c', "trap 'exit 0' TERM; sleep 3600 & wait"];

async function timed(samples: Map<CallKind, number[]>, kind: CallKind, call: () => Promise<unknown>): Promise<void> {
  const started = performance.now();
  await call();
  const list = samples.get(kind) ?? [];
  list.push(performance.now() - started);
  samples.set(kind, list);
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
};

export async function measureEngine(host: string, port: number, rounds: number): Promise<Record<CallKind, number>> {
  const client = new EngineClient(host, port);
  const samples = new Map<CallKind, number[]>();
  try {
    for (let round = 0; round < rounds; round++) {
      await timed(samples, 'ping', () => client.call('GET', '/_ping'));
      await timed(samples, 'version', () => client.call('GET', '/v1.41/version'));
      await timed(samples, 'info', () => client.call('GET', '/v1.41/info'));
      await timed(samples, 'list', () => client.call('GET', '/v1.41/containers/json?all=1'));
      await timed(samples, 'images', () => client.call('GET', '/v1.41/images/json'));
      await timed(samples, 'networks', () => client.call('GET', '/v1.41/networks'));
      await timed(samples, 'volumes', () => client.call('GET', '/v1.41/volumes'));
      let id = '';
      await timed(samples, 'create', async () => {
        id = (await client.json<{ Id: string }>('POST', '/v1.41/containers/create', { Image: IMAGE, Cmd: COMMAND })).Id;
      });
      await timed(samples, 'start', () => client.call('POST', `/v1.41/containers/${id}/start`));
      await timed(samples, 'inspect', () => client.call('GET', `/v1.41/containers/${id}/json`));
      await timed(samples, 'stop', () => client.call('POST', `/v1.41/containers/${id}/stop?t=10`));
      await client.call('POST', `/v1.41/containers/${id}/start`);
      await timed(samples, 'kill', () => client.call('POST', `/v1.41/containers/${id}/kill`));
      await timed(samples, 'remove', () => client.call('DELETE', `/v1.41/containers/${id}?force=1`));
    }
  } finally {
    client.close();
  }
  const result = {} as Record<CallKind, number>;
  for (const kind of CALL_KINDS) result[kind] = Math.round(median(samples.get(kind) ?? []) * 10) / 10;
  return result;
}

if (process.argv[1]?.endsWith('measure-engine.js')) {
  const [host = '127.0.0.1', port = '2375'] = (process.argv[2] ?? '').split(':');
  const rounds = Number(process.argv[3] ?? 10);
  console.log(JSON.stringify(await measureEngine(host, Number(port), rounds), null, 2));
}
