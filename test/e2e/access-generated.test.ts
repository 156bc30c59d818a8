import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { itJudgedEveryEngineRequest } from './access-invariant.js';
import { startAccessCluster, type AccessCluster } from './access-support.js';
import { DOCKERFILE, attacks, type AttackOptions } from './access-generator/arbitraries.js';
import { FAMILIES, materialise, type Attack, type Family } from './access-generator/attack.js';
import { answerLeaks } from './access-generator/invariants.js';
import { Hook, Runner, type Failure, type Outcome } from './access-generator/runner.js';
import { wireTo, type Wire } from './access-generator/wire.js';
import { bobState, inventory, judgeAndSweep, makeWorld, restoreBob, stateChanges, type World } from './access-generator/world.js';

/*
 * Issue 42 item 8: the bypass suite as a generator. alice (team-a, `edit`, admission baseline)
 * sends fast-check-generated requests against bob's (team-b, restricted) objects: running and
 * stopped containers, an exec, a network, a volume, an image bob committed, a compose-labelled
 * container. Every attempt is sent twice, naming bob's objects and naming objects nobody holds,
 * and judged by (a) no answer holds bob's identifiers (IDs, 12-character prefixes, names, his
 * secret) beyond what the answer for nobody's holds, (b) bob's objects are as they were (the admin
 * inspects them), and (c) nothing alice made runs with host escalation or reaches bob's objects.
 * A failing attempt is shrunk (fast-check, replaying its path) to a minimal request and printed.
 *
 * CI runs a fixed seed and a bounded count; `npm run test:fuzz` a long run. SWARM_ACCESS_FUZZ_RUNS
 * and SWARM_ACCESS_FUZZ_SEED set them; SWARM_ACCESS_FUZZ_ALL=1 also generates the classes the CI run
 * leaves out below; SWARM_ACCESS_RESULTS=1 writes the counts to test/bench/results/access-bypass.md;
 * SWARM_ACCESS_FUZZ_VERBOSE=1 prints every attempt.
 *
 * Engines 142-143 (engine-faults owns 183-187); manager on 28800, the URL engines must never fetch on 28801.
 */

const PORT = 28800;
const HOOK_PORT = 28801;
const RUNS = Number(process.env.SWARM_ACCESS_FUZZ_RUNS ?? 350);
const SEED = Number(process.env.SWARM_ACCESS_FUZZ_SEED ?? 42);
/** Time to shrink one distinct failure, replaying it on the cluster. */
const SHRINK_MS = Number(process.env.SWARM_ACCESS_FUZZ_SHRINK_MS ?? 60_000);
const VERBOSE = process.env.SWARM_ACCESS_FUZZ_VERBOSE === '1';
const RESULTS = fileURLToPath(new URL('../bench/results/access-bypass.md', import.meta.url));

/**
 * Classes of hole still open when this file was last run (see test/bench/results/access-bypass.md):
 * left out of the CI seed, each named by the issue item that holds it. SWARM_ACCESS_FUZZ_ALL=1
 * (`npm run test:fuzz`) generates them.
 */
// None is open now: network names are the engine's and a taken one is a documented conflict; a
// hidden image is refused after admission, as an image nobody has is found missing after it.
const STILL_OPEN: AttackOptions = {};
const OPTIONS: AttackOptions = process.env.SWARM_ACCESS_FUZZ_ALL === '1' ? {} : STILL_OPEN;

let cluster: AccessCluster;
let world: World;
let runner: Runner;
let wire: Wire;
const hook = new Hook(HOOK_PORT);

beforeAll(async () => {
  cluster = await startAccessCluster({ firstEngine: 142, engines: 2, port: PORT, args: ['--ui'], recordEngines: true });
  world = await makeWorld(cluster);
  await hook.start();
  wire = wireTo(cluster.dir, PORT);
  runner = new Runner({ cluster, world, wire, hook });
}, 300_000);

afterAll(async () => {
  await hook.stop();
  await cluster?.stop();
});

interface Found {
  readonly index: number;
  readonly failure: Failure;
  readonly outcome: Outcome;
  minimal?: string;
  shrinks?: number;
}

function oneLine(text: string, length = 700): string {
  return text
    .replace(/\r\n/g, '⏎')
    .replace(/[^\x20-\x7e⏎·]+/g, '·')
    .slice(0, length);
}

function describeRequest(attack: Attack): string {
  return oneLine(materialise(attack, world, 'bob', hook.url).text, 1200);
}

describe('generated attacks from alice on bob’s objects (issue 42 item 8)', () => {
  // The invariants can fail: each sees what it must when the change or answer is there (bob's own
  // answer, a change the admin makes, a container the admin may make privileged).
  it('(controls) the invariants see bob’s own answer, a change to his objects and a privileged container', async () => {
    const inspect: Attack = {
      family: 'container',
      route: 'GET /containers/{c}/json',
      method: 'GET',
      version: '/v1.41',
      path: '/containers/«b:db:name»/json',
      pathForm: 'plain',
      query: [],
      contentType: 'none',
      framing: 'length',
      asks: [],
    };
    const theirs = materialise(inspect, world, 'bob', hook.url);
    const nobodys = materialise(inspect, world, 'nobody', hook.url);
    const [own, none] = [await wire.send('bob', theirs.bytes), await wire.send('bob', nobodys.bytes)];
    const seen = answerLeaks(world, own.bytes, none.bytes, theirs.pairs).map((leak) => leak.what);
    expect(seen).toEqual(expect.arrayContaining(['secret', 'db ID', 'db ID prefix', 'net ID', 'net name']));

    const before = await bobState(cluster.call, world);
    await cluster.call('admin', 'POST', `/v1.41/containers/${world.bob.db.id}/pause`);
    const changed = stateChanges(before, await bobState(cluster.call, world));
    await restoreBob(cluster.call, world);
    expect(changed.map((change) => change.split(':')[0])).toEqual(['db']);
    expect(stateChanges(before, await bobState(cluster.call, world))).toEqual([]);

    const known = await inventory(cluster.call, world);
    const made = await cluster.call('admin', 'POST', '/v1.41/containers/create', {
      Image: 'busybox:local',
      Cmd: ['true'],
      HostConfig: {
        Privileged: true,
        Binds: ['/:/host:ro'],
        VolumesFrom: [world.bob.db.id],
        Mounts: [
          {
            Type: 'volume',
            Source: 'control-sysfs',
            Target: '/s',
            VolumeOptions: { DriverConfig: { Name: 'local', Options: { type: 'sysfs', device: 'sysfs' } } },
          },
        ],
      },
    });
    expect(made.status).toBe(201);
    const volume = await cluster.call('admin', 'POST', '/v1.41/volumes/create', {
      Name: 'control-bind',
      DriverOpts: { type: 'none', o: 'bind', device: '/' },
    });
    expect(volume.status).toBe(201);
    expect(await judgeAndSweep(cluster.call, world, known)).toEqual(
      expect.arrayContaining([
        'container: Privileged',
        'container: bind of /',
        'container: VolumesFrom another team',
        'container: volume type=sysfs device=sysfs',
        'volume: o=bind device=/',
      ]),
    );
    const left = await inventory(cluster.call, world);
    expect([left.containers, left.volumes]).toEqual([known.containers, known.volumes]);

    // a build alice may run runs its RUN step, and the marker the build check looks for shows
    const build: Attack = {
      ...inspect,
      family: 'build',
      route: 'POST /build',
      method: 'POST',
      path: '/build',
      query: [['t', '«n»:1']],
      body: { type: 'tar', file: 'Dockerfile', content: DOCKERFILE },
      contentType: 'tar',
    };
    const built = await wire.send('alice', materialise(build, world, 'bob', hook.url).bytes, 5_000);
    expect(built.bytes).toContain('42-ran-x');
    await judgeAndSweep(cluster.call, world, known);
  });

  it(
    `holds (a) no identifier of bob's in alice's answers, (b) bob's objects unchanged, (c) no host escalation, for ${RUNS} attacks of seed ${SEED}`,
    async () => {
      await runner.start();
      const started = performance.now();
      const byFamily = new Map<Family, { attempts: number; failing: number }>(FAMILIES.map((f) => [f, { attempts: 0, failing: 0 }]));
      const byFraming = new Map<string, number>();
      const statuses = new Map<number, number>();
      const found = new Map<string, Found>();
      // Not an invariant: where bob's objects and nobody's get different statuses (the documented name conflicts among them), for the record
      const differing = new Map<string, number>();
      let failingAttempts = 0;
      let index = 0;
      const arbitrary = attacks(OPTIONS);
      await fc.check(
        fc.asyncProperty(arbitrary, async (attack) => {
          const outcome = await runner.run(attack);
          const row = byFamily.get(attack.family)!;
          row.attempts++;
          byFraming.set(attack.framing, (byFraming.get(attack.framing) ?? 0) + 1);
          statuses.set(outcome.status, (statuses.get(outcome.status) ?? 0) + 1);
          if (outcome.status !== outcome.nobodyStatus) {
            const key = `${attack.route} ${outcome.status}/${outcome.nobodyStatus}`;
            differing.set(key, (differing.get(key) ?? 0) + 1);
          }
          if (outcome.failures.length > 0) {
            row.failing++;
            failingAttempts++;
          }
          for (const failure of outcome.failures) if (!found.has(failure.key)) found.set(failure.key, { index, failure, outcome });
          if (VERBOSE)
            console.log(
              `#${index} ${outcome.status}/${outcome.nobodyStatus} ${outcome.failures.map((f) => f.key).join(' ')} ${oneLine(outcome.request, 900)} => ${oneLine(outcome.answer.slice(-300), 300)}${outcome.status !== outcome.nobodyStatus ? ` / nobody's: ${oneLine(outcome.nobodyAnswer.slice(-200), 200)}` : ''}`,
            );
          index++;
          return true;
        }),
        { seed: SEED, numRuns: RUNS },
      );
      const generated = (performance.now() - started) / 1000;
      // Each distinct failure, replayed from its place in the run and shrunk to the least request that still fails the same way.
      for (const [key, entry] of found) {
        const details = await fc.check(
          fc.asyncProperty(arbitrary, async (attack) => !(await runner.run(attack)).failures.some((failure) => failure.key === key)),
          { seed: SEED, path: String(entry.index), numRuns: 1, interruptAfterTimeLimit: SHRINK_MS },
        );
        if (details.failed && details.counterexample) {
          entry.minimal = describeRequest(details.counterexample[0]);
          entry.shrinks = details.numShrinks;
        }
      }
      const seconds = (performance.now() - started) / 1000;
      const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: fileURLToPath(new URL('../..', import.meta.url)) })
        .toString()
        .trim();
      const summary = {
        seed: SEED,
        runs: RUNS,
        seconds: Math.round(seconds),
        generatedSeconds: Math.round(generated),
        failingAttempts,
        distinctFailures: found.size,
        byFamily: Object.fromEntries([...byFamily].filter(([, row]) => row.attempts > 0)),
        byFraming: Object.fromEntries(byFraming),
        statuses: Object.fromEntries([...statuses].sort((x, y) => x[0] - y[0])),
        statusDiffers: Object.fromEntries([...differing].sort((x, y) => y[1] - x[1])),
      };
      console.log(`access-generated: ${JSON.stringify(summary)}`);
      const lines = [...found].map(
        ([key, entry]) =>
          `${key}\n  ${entry.failure.detail.slice(0, 500)}\n  first at #${entry.index}: ${oneLine(entry.outcome.request, 600)}\n  minimal${entry.shrinks !== undefined ? ` (${entry.shrinks} shrinks)` : ' (not shrunk: did not fail again)'}: ${entry.minimal ?? oneLine(entry.outcome.request, 600)}`,
      );
      for (const line of lines) console.log(`access-generated: FAILURE ${line}`);
      if (process.env.SWARM_ACCESS_RESULTS) writeResults(summary, found, commit);
      expect(lines).toEqual([]);
    },
    Math.max(600_000, RUNS * 4_000),
  );
});

// Issue 42 item 1 over every generated attack: each request an engine received is the manager's own
// or an allowed, audited one (a recording proxy in front of each engine). Last: it stops the manager.
itJudgedEveryEngineRequest('access-generated', () => cluster);

const START = '<!-- access-generated: start -->';
const END = '<!-- access-generated: end -->';

function writeResults(
  summary: Record<string, unknown> & {
    byFamily: Record<string, { attempts: number; failing: number }>;
    byFraming: Record<string, number>;
    statusDiffers: Record<string, number>;
  },
  found: Map<string, Found>,
  head: string,
): void {
  const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/`/g, "'");
  const section = [
    START,
    '## Generated attacks (test/e2e/access-generated.test.ts)',
    '',
    `${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, ${head}: seed ${String(summary['seed'])}, ${String(summary['runs'])} attacks in ${String(summary['seconds'])} s, ${String(summary['failingAttempts'])} failing, ${found.size} distinct failures.`,
    '',
    '| family | attempts | failing |',
    '| --- | --- | --- |',
    ...Object.entries(summary.byFamily).map(([family, row]) => `| ${family} | ${row.attempts} | ${row.failing} |`),
    '',
    ...(Object.keys(OPTIONS).length > 0
      ? [`Left out of this run (holes still open, each named in the file's STILL_OPEN): \`${JSON.stringify(OPTIONS)}\`.`, '']
      : []),
    `Framings: ${Object.entries(summary.byFraming)
      .map(([framing, n]) => `${framing} ${n}`)
      .join(', ')}.`,
    '',
    "Not an invariant, for the record: routes where the answer for bob's objects had another status than for nobody's (the documented name conflicts among them; the text is compared by invariant (a)):",
    '',
    "| route | bob's / nobody's status | attempts |",
    '| --- | --- | --- |',
    ...Object.entries(summary.statusDiffers)
      .slice(0, 20)
      .map(([key, n]) => {
        const at = key.lastIndexOf(' ');
        return `| ${cell(key.slice(0, at))} | ${key.slice(at + 1)} | ${n} |`;
      }),
    '',
    ...(found.size > 0
      ? [
          '| failure | minimal request |',
          '| --- | --- |',
          ...[...found].map(
            ([key, entry]) =>
              `| ${cell(key)}: ${cell(entry.failure.detail.slice(0, 200))} | \`${cell(entry.minimal ?? oneLine(entry.outcome.request, 400))}\` |`,
          ),
          '',
        ]
      : []),
    END,
  ].join('\n');
  const text = existsSync(RESULTS) ? readFileSync(RESULTS, 'utf8') : '';
  const from = text.indexOf(START);
  const to = text.indexOf(END);
  const next =
    from !== -1 && to !== -1 ? `${text.slice(0, from)}${section}${text.slice(to + END.length)}` : `${text.trimEnd()}\n\n${section}\n`;
  writeFileSync(RESULTS, next);
}
