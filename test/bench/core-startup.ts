/**
 * Cold start of `swarm manage` until it listens, with every built-in plugin named in the config
 * and Swarm classic's seven filters configured: median of 10 runs. Writes
 * test/bench/results/core-startup.md.
 *
 *   npx tsc -b plugin-sdk core && npx tsc -p test/bench && node test/bench/dist/core-startup.js
 */
import { spawn } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { builtinPackageNames } from '@swarm/core';
import { machineDescription, median, ms } from './core-machine.js';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const BIN = `${REPO}core/bin/swarm.js`;
const RUNS = Number(process.env['BENCH_RUNS'] ?? 10);
const PORT = 23020;
const WORK = `${REPO}test/bench/results/core-startup.tmp`;

interface Run {
  listening: number;
  built: number;
}

/** Spawn the CLI and time the log lines it prints on the way up; SIGTERM once listening. */
function startOnce(args: readonly string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'ignore', 'pipe'], cwd: WORK });
    let output = '';
    let built = Number.NaN;
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (Number.isNaN(built) && output.includes('Deployment built')) built = performance.now() - started;
      if (output.includes('Listening for HTTP')) {
        const listening = performance.now() - started;
        child.kill('SIGTERM');
        child.once('exit', () => resolve({ listening, built }));
      }
    });
    child.once('exit', (code) => {
      if (!output.includes('Listening for HTTP')) reject(new Error(`swarm manage exited (${code}) before listening:\n${output}`));
    });
  });
}

function nodeBaseline(): Promise<number> {
  return new Promise((resolve) => {
    const started = performance.now();
    spawn(process.execPath, ['-e', '0']).once('exit', () => resolve(performance.now() - started));
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

const rows: string[] = [];
for (const [index, scenario] of scenarios.entries()) {
  const file = `${WORK}/swarm.config.${index}.json`;
  writeFileSync(file, JSON.stringify(scenario.config));
  const args = ['manage', '--config', file, '-H', `tcp://127.0.0.1:${PORT}`, 'nodes://127.0.0.250:2375'];
  await startOnce(args); // warm the file system cache, as any second start on a machine would be
  const runs: Run[] = [];
  for (let run = 0; run < RUNS; run++) runs.push(await startOnce(args));
  const built = runs.map((run) => run.built);
  const listening = runs.map((run) => run.listening);
  rows.push(`| ${scenario.name} | ${ms(median(built))} | ${ms(median(listening))} | ${ms(Math.min(...listening))} | ${ms(Math.max(...listening))} |`);
}
const baselines: number[] = [];
for (let index = 0; index < 5; index++) baselines.push(await nodeBaseline());
rmSync(WORK, { recursive: true, force: true });

const report = `# swarm manage cold start (core)

Command: \`npx tsc -b plugin-sdk core && npx tsc -p test/bench && node test/bench/dist/core-startup.js\`

Machine: ${machineDescription()}

Setup: a fresh \`node core/bin/swarm.js manage --config <file> -H tcp://127.0.0.1:${PORT} nodes://127.0.0.250:2375\` process per run (no engine is needed to listen), JSON logs; time from spawn to the log line. Median of ${RUNS} runs after one warm-up run. For scale, a bare \`node -e 0\` takes ${ms(median(baselines))} (median of 5) on the same machine at the same time.

| config | spawn → "Deployment built" | spawn → "Listening for HTTP" | min | max |
| --- | --- | --- | --- | --- |
${rows.join('\n')}

Target: under 300 ms to listening.
`;
writeFileSync(`${REPO}test/bench/results/core-startup.md`, report);
process.stdout.write(report);
