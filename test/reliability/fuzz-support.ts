import { mkdirSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import type { FuzzRequest } from './malformed-requests.js';

/**
 * What the seeded fuzz suites share (fuzz.test.ts, fuzz-access.test.ts): sending a request as
 * written, Docker's error form, telling a manager-made 5xx from an engine's own, the workers that
 * keep stateful requests in turn, the /_ping probe that runs alongside, and the results file.
 */

export interface Answer {
  status: number;
  contentType: string;
  /** The `Location` of a redirect, else ''. */
  location: string;
  body: string;
}

/** The words the manager logs when something escaped a handler: a crash in all but name. */
export const CRASH_WORDS = /uncaught exception|unhandled rejection|failed outside its handler/;

export function send(host: string, port: number, agent: Agent | undefined, fuzz: FuzzRequest): Promise<Answer> {
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
          location: String(res.headers.location ?? ''),
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
export function isDockerError(answer: Answer, target: string): boolean {
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

/** A 5xx is the engine's own when one of `engines` (hosts on port 2375) answers the same request with a 5xx too. */
export async function engineAlsoFails(engines: readonly string[], fuzz: FuzzRequest): Promise<boolean> {
  for (const host of engines) {
    const answer = await send(host, 2375, undefined, fuzz).catch(() => undefined);
    if (answer && answer.status >= 500) return true;
  }
  return false;
}

/** What a fuzz run counts: answers by status, problems, and the 5xx an engine answers too. */
export class FuzzTally {
  readonly statuses = new Map<number, number>();
  readonly problems: string[] = [];
  engineMade5xx = 0;

  /**
   * Sends `fuzz` to the manager on `port` and counts the answer's status. No answer, or an error
   * not in Docker's form, is a problem (`label` names the request in it).
   */
  async send(port: number, agent: Agent, fuzz: FuzzRequest, label: string): Promise<Answer | undefined> {
    let answer: Answer;
    try {
      answer = await send('127.0.0.1', port, agent, fuzz);
    } catch (error) {
      this.problems.push(`${label}: ${(error as Error).message}`);
      return undefined;
    }
    this.statuses.set(answer.status, (this.statuses.get(answer.status) ?? 0) + 1);
    if (answer.status >= 400 && fuzz.method !== 'HEAD' && !isDockerError(answer, fuzz.target)) {
      this.problems.push(`${label}: ${answer.status} not in Docker's {"message"} form: ${answer.body.slice(0, 120)}`);
    }
    return answer;
  }

  /** The head of a run's summary: when, which requests, how long, what was answered. */
  figures(seed: number, requests: number, seconds: number) {
    return {
      date: new Date().toISOString(),
      seed,
      requests,
      seconds: Math.round(seconds * 10) / 10,
      statuses: statusTable(this.statuses),
      engineMade5xx: this.engineMade5xx,
    };
  }

  /** A 5xx is replayed at once on `engines`, while they are in the state that made it: unless one answers 5xx too, it is the manager's. */
  async replay5xx(engines: readonly string[], fuzz: FuzzRequest, label: string, answer: Answer): Promise<void> {
    if (answer.status < 500) return;
    if (await engineAlsoFails(engines, fuzz)) this.engineMade5xx++;
    else this.problems.push(`${label}: manager-made ${answer.status} (the engines answer below 500): ${answer.body.slice(0, 120)}`);
  }
}

export function percentile(sorted: readonly number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? 0;
}

/**
 * Runs `check` on every request with `concurrency` workers. Requests on the one stateful object
 * change its state, and an engine refuses a df while another runs: those `inTurn` says so run with
 * their replay one at a time, so the engine sees what the manager saw.
 */
export async function runWorkers<T>(
  requests: Iterator<T>,
  concurrency: number,
  inTurn: (item: T) => boolean,
  check: (item: T) => Promise<void>,
): Promise<void> {
  let turn: Promise<void> = Promise.resolve();
  const worker = async () => {
    for (let next = requests.next(); !next.done; next = requests.next()) {
      const item = next.value;
      if (inTurn(item)) {
        const previous = turn;
        let release = () => {};
        turn = new Promise((resolve) => (release = resolve));
        await previous;
        await check(item).finally(release);
      } else await check(item);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

export interface Pinger {
  /** Stops the probe and gives the round trips of the pings that answered `OK`, sorted (ms). */
  stop(): Promise<number[]>;
}

/** Asks the manager's /_ping every 20 ms while the fuzz runs; a ping that fails is a problem. */
export function startPinger(port: number, problems: string[], headers: Record<string, string> = {}): Pinger {
  const pings: number[] = [];
  let running = true;
  const loop = (async () => {
    const pingAgent = new Agent({ keepAlive: true, maxSockets: 1 });
    while (running) {
      const started = performance.now();
      const answer = await send('127.0.0.1', port, pingAgent, { method: 'GET', target: '/_ping', headers }).catch(() => undefined);
      if (answer?.body === 'OK') pings.push(performance.now() - started);
      else problems.push(`/_ping failed during the fuzz: ${answer?.status ?? 'no answer'}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    pingAgent.destroy();
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return pings.sort((a, b) => a - b);
    },
  };
}

export function pingFigures(pings: readonly number[]): { count: number; p50Ms: number; p99Ms: number; maxMs: number } {
  return { count: pings.length, p50Ms: percentile(pings, 0.5), p99Ms: percentile(pings, 0.99), maxMs: pings.at(-1) ?? 0 };
}

/** Answers by status, in status order. */
export function statusTable(statuses: ReadonlyMap<number, number>): Record<string, number> {
  return Object.fromEntries([...statuses].sort(([a], [b]) => a - b));
}

/** Writes `summary` and the first 50 problems to `$SWARM_FUZZ_RESULTS/<stem>-<date>.json` when that is set. */
export function writeFuzzResults(stem: string, summary: { date: string }, problems: readonly string[]): void {
  const resultsDir = process.env.SWARM_FUZZ_RESULTS;
  if (!resultsDir) return;
  mkdirSync(resultsDir, { recursive: true });
  writeFileSync(
    join(resultsDir, `${stem}-${summary.date.slice(0, 10)}.json`),
    `${JSON.stringify({ ...summary, problemSamples: problems.slice(0, 50) }, null, 2)}\n`,
  );
}
