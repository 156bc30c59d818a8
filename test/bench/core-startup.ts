/**
 * Cold start of `swarm manage` until it listens, with every built-in plugin named in the config
 * and Swarm classic's seven filters configured: median of 10 runs. Writes
 * test/bench/results/core-startup.md.
 *
 *   npx tsc -b plugin-sdk core && npx tsc -p test/bench/core-tsconfig.json && node test/bench/dist/core-startup.js
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
rmSync(WORK, { recursive: true, force: true });
mkdirSync(WORK, { recursive: true });
writeFileSync(
  `${WORK}/swarm.config.json`,
  JSON.stringify({
    plugins: builtins,
    scheduler: { filters: ['health', 'port', 'containerslots', 'dependency', 'affinity', 'constraint', 'whitelist'], strategy: 'spread' },
  }),
);
// Plugins named in the config resolve from the config's folder: give it the workspace's modules.
writeFileSync(`${WORK}/package.json`, JSON.stringify({ name: 'core-startup-bench', private: true }));
const args = ['manage', '--config', `${WORK}/swarm.config.json`, '-H', `tcp://127.0.0.1:${PORT}`, '--log-level', 'info', 'nodes://127.0.0.250:2375'];

await startOnce(args); // warm the file system cache, as any second start on a machine would be
const runs: Run[] = [];
for (let index = 0; index < RUNS; index++) runs.push(await startOnce(args));
const baselines: number[] = [];
for (let index = 0; index < 5; index++) baselines.push(await nodeBaseline());
rmSync(WORK, { recursive: true, force: true });

const listening = median(runs.map((run) => run.listening));
const built = median(runs.map((run) => run.built));
const report = `# swarm manage cold start (core)

Command: \`npx tsc -b plugin-sdk core && npx tsc -p test/bench/core-tsconfig.json && node test/bench/dist/core-startup.js\`

Machine: ${machineDescription()}

Setup: a fresh \`node core/bin/swarm.js manage\` process per run, config naming all ${builtins.length} built-in plugins and Swarm classic's 7 filters with spread, discovery \`nodes://127.0.0.250:2375\` (no engine needed to listen), JSON logs. Time from spawn to the log line. Median of ${RUNS} runs (one warm-up run first).

| measure | median | min | max |
| --- | --- | --- | --- |
| spawn → "Deployment built" (config, plugins loaded and registered) | ${ms(built)} | ${ms(Math.min(...runs.map((run) => run.built)))} | ${ms(Math.max(...runs.map((run) => run.built)))} |
| spawn → "Listening for HTTP" | ${ms(listening)} | ${ms(Math.min(...runs.map((run) => run.listening)))} | ${ms(Math.max(...runs.map((run) => run.listening)))} |
| baseline: \`node -e 0\` (median of 5) | ${ms(median(baselines))} | | |

Target: under 300 ms to listening.
`;
writeFileSync(`${REPO}test/bench/results/core-startup.md`, report);
process.stdout.write(report);
