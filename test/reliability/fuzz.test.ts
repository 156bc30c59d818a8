import { Agent } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerOk, startApiCluster, type ApiCluster } from '../e2e/api-support.js';
import { CRASH_WORDS, FuzzTally, pingFigures, runWorkers, startPinger, writeFuzzResults } from './fuzz-support.js';
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

describe('malformed requests (seeded fuzz)', () => {
  it(
    `answers ${COUNT} malformed requests in Docker's error form, with no manager-made 5xx and no crash`,
    async () => {
      const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
      const tally = new FuzzTally();
      const { problems } = tally;
      const pinger = startPinger(MANAGER_PORT, problems);

      const started = performance.now();
      const requests = malformedRequests(SEED, COUNT, {
        container: 'fuzzc',
        image: 'busybox:local',
        network: 'fuzznet',
        volume: 'fuzzvol',
      });
      const check = async (fuzz: FuzzRequest) => {
        const label = `${fuzz.method} ${fuzz.target} ${fuzz.body?.slice(0, 120) ?? ''}`;
        const answer = await tally.send(MANAGER_PORT, agent, fuzz, label);
        if (answer) await tally.replay5xx(ENGINES, fuzz, label, answer);
      };
      await runWorkers(requests, CONCURRENCY, (fuzz) => STATEFUL.test(fuzz.target), check);
      const seconds = (performance.now() - started) / 1000;
      const pings = await pinger.stop();
      agent.destroy();
      if (!cluster.manager.running()) problems.unshift(`the manager exited; its last words:\n${cluster.manager.output().slice(-3000)}`);
      const summary = {
        ...tally.figures(SEED, COUNT, seconds),
        problems: problems.length,
        ping: pingFigures(pings),
      };
      console.log(`fuzz: ${JSON.stringify(summary)}`);
      writeFuzzResults(`fuzz-seed${SEED}`, summary, problems);
      expect(problems.slice(0, 20)).toEqual([]);
      expect(cluster.manager.running(), cluster.manager.output()).toBe(true);
      expect(cluster.manager.output()).not.toMatch(CRASH_WORDS);
    },
    Math.max(120_000, COUNT * 6),
  );
});
