/**
 * A BuildKit build through `swarm manage` against the same build straight on one engine (issue 43
 * item 1): the real docker CLI 28 with the buildx 0.13 plugin (its default builder, BuildKit with
 * buildx's docker driver), engines 153-154 (dockerd 20.10), the manager on port 28955, each build
 * pinned to engine 153 (`--build-arg constraint:node==node153` through the manager, the same
 * build arg straight on the engine, where it is unused). Two builds: `--no-cache` (a COPY of the
 * context and a RUN step, each time built anew) and a rebuild answered from the cache (the
 * session and gRPC round trips alone). BENCH_BUILDKIT_ROUNDS rounds (5), front and direct
 * alternating, medians. Adds a section to test/bench/results/buildkit.md, newest first.
 *
 *   npm run build && npx tsc -p test/bench && node test/bench/dist/buildkit.js
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { machineDescription, median } from './core-machine.js';

const run = promisify(execFile);
const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const TESTBED = here('../../testbed/testbed.sh');
const SWARM = here('../../../core/bin/swarm.js');
const RESULTS = here('../results/buildkit.md');
const PLUGINS = join(process.env['SWARM_TRIXIE_DIR'] ?? '/opt/swarm-test/docker-trixie', 'docker-config', 'cli-plugins');
const ROUNDS = Number(process.env['BENCH_BUILDKIT_ROUNDS'] ?? 5);
const FIRST = 153;
const PORT = 28955;
const ENGINE = `tcp://127.0.0.${FIRST + 1}:2375`;
const FRONT = `tcp://127.0.0.1:${PORT}`;

async function timed(env: NodeJS.ProcessEnv, host: string, args: string[]): Promise<number> {
  const started = process.hrtime.bigint();
  const { stderr } = await run('docker', ['-H', host, ...args], { env, maxBuffer: 16 << 20 }).catch((error: { stderr?: string }) => {
    throw new Error(`docker ${args.join(' ')} on ${host} failed: ${error.stderr ?? String(error)}`);
  });
  if (!stderr.includes('naming to')) throw new Error(`docker ${args.join(' ')} on ${host} built no image: ${stderr}`);
  return Number(process.hrtime.bigint() - started) / 1e6;
}

async function waitForNodes(env: NodeJS.ProcessEnv): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const info = await run('docker', ['-H', FRONT, 'info', '--format', '{{json .SystemStatus}}'], { env }).catch(() => undefined);
    if (info && (info.stdout.match(/Healthy/g) ?? []).length >= 2) return;
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  throw new Error('the manager did not see both engines healthy');
}

async function main(): Promise<void> {
  if (!existsSync(join(PLUGINS, 'docker-buildx'))) throw new Error(`buildx is missing from ${PLUGINS}: run 'bash test/setup-machine.sh'`);
  const dir = mkdtempSync(join(tmpdir(), 'swarm-bench-buildkit-'));
  const config = join(dir, 'docker-config');
  mkdirSync(config);
  symlinkSync(PLUGINS, join(config, 'cli-plugins'));
  const env: NodeJS.ProcessEnv = { ...process.env, DOCKER_CONFIG: config };
  for (const name of ['DOCKER_HOST', 'DOCKER_CONTEXT', 'DOCKER_BUILDKIT', 'DOCKER_TLS_VERIFY', 'DOCKER_CERT_PATH']) delete env[name];
  const context = join(dir, 'context');
  mkdirSync(context);
  writeFileSync(join(context, 'data.txt'), 'x'.repeat(1 << 20));
  writeFileSync(join(context, 'Dockerfile'), 'FROM busybox:local\nCOPY data.txt /data.txt\nRUN wc -c /data.txt > /size\n');

  await run('bash', [TESTBED, 'up', '2', '--first', String(FIRST)]);
  const manager = spawn(process.execPath, [SWARM, 'manage', '-H', FRONT, `127.0.0.${FIRST + 1}:2375,127.0.0.${FIRST + 2}:2375`], {
    stdio: 'ignore',
  });
  const rows: string[] = [];
  try {
    await waitForNodes(env);
    const builds: Array<[label: string, extra: string[]]> = [
      ['`docker build --no-cache` (COPY of 1 MiB, one RUN)', ['--no-cache']],
      ['`docker build` again, from the cache', []],
    ];
    for (const [label, extra] of builds) {
      const args = ['build', ...extra, '--build-arg', `constraint:node==node${FIRST}`, '-t', 'bench-buildkit:1', context];
      // one untimed build each way: the base image's layers and the cache are warm for both
      await timed(env, FRONT, args);
      await timed(env, ENGINE, args);
      const front: number[] = [];
      const direct: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        front.push(await timed(env, FRONT, args));
        direct.push(await timed(env, ENGINE, args));
      }
      const [f, d] = [median(front), median(direct)];
      rows.push(
        `| ${label} | ${f.toFixed(0)} ms | ${d.toFixed(0)} ms | ${(f / d).toFixed(2)} | ${front.map((v) => v.toFixed(0)).join(', ')} | ${direct.map((v) => v.toFixed(0)).join(', ')} |`,
      );
      console.log(rows.at(-1));
    }
  } finally {
    manager.kill();
    await run('bash', [TESTBED, 'down', '--first', String(FIRST), '--count', '2']);
    rmSync(dir, { recursive: true, force: true });
  }
  const commit = (await run('git', ['rev-parse', '--short', 'HEAD'])).stdout.trim();
  const section = [
    `## ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, commit ${commit}`,
    '',
    `Machine: ${machineDescription()}. Docker CLI ${(await run('docker', ['--version'])).stdout.trim()}, buildx 0.13.1, engines dockerd 20.10 (vfs). ${ROUNDS} rounds, front and direct alternating.`,
    '',
    '| build | through swarm (median) | engine directly (median) | ratio | swarm, each round | direct, each round |',
    '| --- | --- | --- | --- | --- | --- |',
    ...rows,
    '',
  ].join('\n');
  const header =
    '# BuildKit builds through the manager\n\nCommand: `npm run build && npx tsc -p test/bench && node test/bench/dist/buildkit.js` (what it measures: the comment at the top of `test/bench/buildkit.ts`). Each run adds a section, newest first.\n\n';
  const previous = existsSync(RESULTS) ? readFileSync(RESULTS, 'utf8').replace(header, '') : '';
  writeFileSync(RESULTS, `${header}${section}\n${previous}`);
}

await main();
