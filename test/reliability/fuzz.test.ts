import { mkdirSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerOk, startApiCluster, type ApiCluster } from '../e2e/api-support.js';
import { malformedRequests, type FuzzRequest } from './malformed-requests.js';

// Engines 188-189 behind `swarm manage` on port 26150. Indexes 188-189 and ports 26150-26159
// belong to this file. `npm test` sends 10,000 seeded requests; `npm run test:fuzz` sends
// SWARM_FUZZ_REQUESTS (default 100,000) and writes its figures to SWARM_FUZZ_RESULTS.
const MANAGER_PORT = 26150;
const ENGINES = ['127.0.0.189', '127.0.0.190'];
const COUNT = Number(process.env.SWARM_FUZZ_REQUESTS ?? 10_000);
const SEED = Number(process.env.SWARM_FUZZ_SEED ?? 1);
const CONCURRENCY = 8;

let cluster: ApiCluster;

/** Targets whose answer depends on state the fuzz itself changes (the container's, a df running), however spelt. */
const STATEFUL = /containers(\/|%2F)fuzzc|system(\/|%2F)df/i;

beforeAll(async () => {
  cluster = await startApiCluster(188, 2, MANAGER_PORT);
  await dockerOk(cluster.host, ['run', '-d', '--name', 'fuzzc', 'busybox:local', 'sleep', '3600']);
  await dockerOk(cluster.host, ['network', 'create', 'fuzznet']);
  await dockerOk(cluster.host, ['volume', 'create', 'fuzzvol']);
});

afterAll(async () => {
  await cluster?.stop();
});

interface Answer {
  status: number;
  contentType: string;
  body: string;
}

function send(host: string, port: number, agent: Agent | undefined, fuzz: FuzzRequest): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...fuzz.headers };
    if (fuzz.body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(fuzz.body));
    const req = request({ host, port, method: fuzz.method, path: fuzz.target, headers, agent, timeout: 10_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          contentType: String(res.headers['content-type'] ?? ''),
          body: Buffer.concat(chunks).toString(),
        }),
      );
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('no answer in 10 s')));
    req.on('error', reject);
    req.end(fuzz.body);
  });
}

/** Docker's error form: `{"message": ...}`; before API 1.24, Docker answered errors in plain text. */
function isDockerError(answer: Answer, target: string): boolean {
  const version = /^\/v(\d+)\.(\d+)\//.exec(target);
  if (version && Number(version[1]) === 1 && Number(version[2]) < 24 && answer.contentType.startsWith('text/plain'))
    return answer.body !== '';
  try {
    const parsed = JSON.parse(answer.body) as { message?: unknown };
    return typeof parsed.message === 'string' && parsed.message !== '';
  } catch {
    return false;
  }
}

/** A 5xx is the engine's own when an engine answers the same request with a 5xx too. */
async function engineAlsoFails(fuzz: FuzzRequest): Promise<boolean> {
  for (const host of ENGINES) {
    const answer = await send(host, 2375, undefined, fuzz).catch(() => undefined);
    if (answer && answer.status >= 500) return true;
  }
  return false;
}

function percentile(sorted: readonly number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? 0;
}

describe('malformed requests (seeded fuzz)', () => {
  it(
    `answers ${COUNT} malformed requests in Docker's error form, with no manager-made 5xx and no crash`,
    async () => {
      const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
      const problems: string[] = [];
      const statuses = new Map<number, number>();
      let engineMade5xx = 0;
      const pings: number[] = [];
      let fuzzing = true;
      const pinger = (async () => {
        const pingAgent = new Agent({ keepAlive: true, maxSockets: 1 });
        while (fuzzing) {
          const started = performance.now();
          const answer = await send('127.0.0.1', MANAGER_PORT, pingAgent, { method: 'GET', target: '/_ping', headers: {} }).catch(
            () => undefined,
          );
          if (answer?.body === 'OK') pings.push(performance.now() - started);
          else problems.push(`/_ping failed during the fuzz: ${answer?.status ?? 'no answer'}`);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        pingAgent.destroy();
      })();

      const started = performance.now();
      const requests = malformedRequests(SEED, COUNT, {
        container: 'fuzzc',
        image: 'busybox:local',
        network: 'fuzznet',
        volume: 'fuzzvol',
      });
      const check = async (fuzz: FuzzRequest) => {
        const label = `${fuzz.method} ${fuzz.target} ${fuzz.body?.slice(0, 120) ?? ''}`;
        let answer: Answer;
        try {
          answer = await send('127.0.0.1', MANAGER_PORT, agent, fuzz);
        } catch (error) {
          problems.push(`${label}: ${(error as Error).message}`);
          return;
        }
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        if (answer.status >= 400 && fuzz.method !== 'HEAD' && !isDockerError(answer, fuzz.target)) {
          problems.push(`${label}: ${answer.status} not in Docker's {"message"} form: ${answer.body.slice(0, 120)}`);
        }
        // Replayed at once, while the containers are in the state that made the answer.
        if (answer.status >= 500) {
          if (await engineAlsoFails(fuzz)) engineMade5xx++;
          else problems.push(`${label}: manager-made ${answer.status} (the engines answer below 500): ${answer.body.slice(0, 120)}`);
        }
      };
      // Requests on the one container change its state, and an engine refuses a df while another
      // runs: each of these runs with its replay, one at a time, so the engine sees what the manager saw.
      let containerTurn: Promise<void> = Promise.resolve();
      const worker = async () => {
        for (let next = requests.next(); !next.done; next = requests.next()) {
          const fuzz = next.value;
          if (STATEFUL.test(fuzz.target)) {
            const previous = containerTurn;
            let release = () => {};
            containerTurn = new Promise((resolve) => (release = resolve));
            await previous;
            await check(fuzz).finally(release);
          } else await check(fuzz);
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
      const seconds = (performance.now() - started) / 1000;
      fuzzing = false;
      await pinger;
      agent.destroy();
      if (!cluster.manager.running()) problems.unshift(`the manager exited; its last words:\n${cluster.manager.output().slice(-3000)}`);
      pings.sort((a, b) => a - b);
      const summary = {
        date: new Date().toISOString(),
        seed: SEED,
        requests: COUNT,
        seconds: Math.round(seconds * 10) / 10,
        statuses: Object.fromEntries([...statuses].sort(([a], [b]) => a - b)),
        engineMade5xx,
        problems: problems.length,
        ping: { count: pings.length, p50Ms: percentile(pings, 0.5), p99Ms: percentile(pings, 0.99), maxMs: pings.at(-1) ?? 0 },
      };
      console.log(`fuzz: ${JSON.stringify(summary)}`);
      const resultsDir = process.env.SWARM_FUZZ_RESULTS;
      if (resultsDir) {
        mkdirSync(resultsDir, { recursive: true });
        writeFileSync(
          join(resultsDir, `fuzz-seed${SEED}-${summary.date.slice(0, 10)}.json`),
          `${JSON.stringify({ ...summary, problemSamples: problems.slice(0, 50) }, null, 2)}\n`,
        );
      }
      expect(problems.slice(0, 20)).toEqual([]);
      expect(cluster.manager.running(), cluster.manager.output()).toBe(true);
      expect(cluster.manager.output()).not.toMatch(/uncaught exception|unhandled rejection|failed outside its handler/);
    },
    Math.max(120_000, COUNT * 6),
  );
});
