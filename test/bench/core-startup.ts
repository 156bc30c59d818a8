/**
 * Cold start of `swarm manage` until it listens, with every built-in plugin named in the config
 * and Swarm classic's seven filters configured: median of 10 runs. Measured in the same run, runs
 * interleaved so load hits all alike: the launcher users run (`core/bin/swarm.js`, which runs the
 * bundle `npm run build` makes), the unbundled compiled CLI (`core/dist/cli/bin.js`) and a bare
 * `node -e 0`. Writes test/bench/results/core-startup.md, keeping its hand-written Notes and the
 * earlier runs.
 *
 *   npm run bench:startup
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { builtinPackageNames } from '@swarm/core';
import { machineDescription, median, ms } from './core-machine.js';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const LAUNCHER = `${REPO}core/bin/swarm.js`;
const UNBUNDLED = `${REPO}core/dist/cli/bin.js`;
const RUNS = Number(process.env['BENCH_RUNS'] ?? 10);
const PORT = 23020;
const WORK = `${REPO}test/bench/results/core-startup.tmp`;
const RESULTS = `${REPO}test/bench/results/core-startup.md`;
const NOTES = '## Notes';
const EARLIER = '## Earlier runs';

// The launcher falls back to the unbundled CLI when the bundle is older than core's tsc output:
// measuring that would be measuring the wrong program.
const bundleTime = statSync(`${REPO}core/dist/bundle/swarm.js`, { throwIfNoEntry: false })?.mtimeMs ?? 0;
if (bundleTime < statSync(`${REPO}core/dist/.tsbuildinfo`).mtimeMs) {
  throw new Error('core/dist/bundle/swarm.js is missing or older than core/dist: run `npm run build` first');
}

/** Spawn `node <args>` and time it until `until` shows in its stderr (then SIGTERM), or until it exits. */
function timeOnce(args: readonly string[], until?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'], cwd: WORK });
    let output = '';
    let elapsed: number | undefined;
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (until && elapsed === undefined && output.includes(until)) {
        elapsed = performance.now() - started;
        child.kill('SIGTERM');
      }
    });
    child.once('exit', (code) => {
      if (!until) resolve(performance.now() - started);
      else if (elapsed !== undefined) resolve(elapsed);
      else reject(new Error(`node ${args.join(' ')} exited (${code}) before "${until}":\n${output}`));
    });
  });
}

const builtins = builtinPackageNames();
const FILTERS = ['health', 'port', 'containerslots', 'dependency', 'affinity', 'constraint', 'whitelist'];
rmSync(WORK, { recursive: true, force: true });
mkdirSync(WORK, { recursive: true });
// Plugins named in a config resolve from its folder; this one sits inside the repository.
const scenarios = [
  {
    name: "Swarm classic's built-ins configured: driver swarm, nodes:// discovery, the 7 filters, spread",
    config: { cluster: { driver: 'swarm' }, scheduler: { filters: FILTERS, strategy: 'spread' } },
  },
  {
    name: `every built-in package (${builtins.length}) named in \`plugins\` as well, so all are imported (etcd and ZooKeeper clients, mesos driver included)`,
    config: { plugins: builtins, cluster: { driver: 'swarm' }, scheduler: { filters: FILTERS, strategy: 'spread' } },
  },
];

const LISTENING = 'Listening for HTTP';
const bare: number[] = [];
const rows: string[] = [];
for (const [index, scenario] of scenarios.entries()) {
  const file = `${WORK}/swarm.config.${index}.json`;
  writeFileSync(file, JSON.stringify(scenario.config));
  const args = ['manage', '--config', file, '-H', `tcp://127.0.0.1:${PORT}`, 'nodes://127.0.0.250:2375'];
  // one warm-up each: the file system cache is warm for any second start on a machine
  await timeOnce([LAUNCHER, ...args], LISTENING);
  await timeOnce([UNBUNDLED, ...args], LISTENING);
  const launched: number[] = [];
  const unbundled: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    launched.push(await timeOnce([LAUNCHER, ...args], LISTENING));
    unbundled.push(await timeOnce([UNBUNDLED, ...args], LISTENING));
    bare.push(await timeOnce(['-e', '0']));
  }
  const ratio = (median(launched) / median(unbundled)).toFixed(2);
  rows.push(
    `| ${scenario.name} | **${ms(median(launched))}** | ${ms(Math.min(...launched))} | ${ms(Math.max(...launched))} | ${ms(median(unbundled))} | ${ratio} |`,
  );
}
rmSync(WORK, { recursive: true, force: true });

// Hand-written NOTES stay; the run this one replaces goes first under EARLIER, older ones after it.
const previous = existsSync(RESULTS) ? readFileSync(RESULTS, 'utf8') : '';
const [current = '', olderRuns = ''] = previous.replace(/^# .*\n/, '').split(EARLIER);
const [previousRun = '', notes = ''] = current.split(NOTES);
const earlier = [previousRun.trim(), olderRuns.trim()].filter(Boolean).join('\n\n---\n\n');
const report = `# swarm manage cold start (core)

Command: \`npm run bench:startup\` (builds, bundle included, then \`node test/bench/dist/core-startup.js\`)

Machine: ${machineDescription()}

Setup: a fresh \`node <cli> manage --config <file> -H tcp://127.0.0.1:${PORT} nodes://127.0.0.250:2375\` process per run (no engine is needed to listen), JSON logs; time from spawn to the "${LISTENING}" log line. \`<cli>\` is \`core/bin/swarm.js\` (what \`npx swarm\` runs: the bundle \`npm run build\` makes) or, as the baseline measured in the same run, the unbundled \`core/dist/cli/bin.js\`. Median of ${RUNS} runs after one warm-up run each, runs interleaved. A bare \`node -e 0\` takes ${ms(median(bare))} (median of ${bare.length}, same runs).

| config | swarm manage → listening (median) | min | max | unbundled CLI (median) | ratio |
| --- | --- | --- | --- | --- | --- |
${rows.join('\n')}

Target: under 300 ms to listening.

${notes.trim() ? `${NOTES}\n\n${notes.trim()}\n\n` : ''}${EARLIER}

${earlier}
`;
writeFileSync(RESULTS, report);
process.stdout.write(report);
