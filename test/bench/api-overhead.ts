/**
 * Overhead of the Docker API front: the real docker CLI against `swarm manage` versus against
 * the same real engine directly, measured in the same run (alternating, medians):
 *   - `docker run -d` round trip, `docker logs` of 50 MB: manager over engine 42 vs engine 42;
 *   - `docker ps -a` with 300 containers: manager over engine 42 vs engine 42, and a manager
 *     over engines 43-45 (100 containers each) vs engine 42's 300.
 * Writes test/bench/results/api-overhead.md.
 *
 *   npx tsc -b core && npx tsc -p test/bench && node test/bench/dist/api-overhead.js
 */
import { execFile, spawn } from 'node:child_process';
import { request } from 'node:http';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { machineDescription, median } from './core-machine.js';

const run = promisify(execFile);
const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const TESTBED = here('../../testbed/testbed.sh');
const SWARM = here('../../../core/dist/cli/bin.js');
const RESULTS = here('../results/api-overhead.md');
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 9);
const LOG_BYTES = 50 * 1024 * 1024;

const engineHost = (index: number) => `tcp://127.0.0.${index + 1}:2375`;

function cliEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env['DOCKER_API_VERSION'];
  return env;
}

/** Wall time of one docker CLI command (stdout drained and counted, not kept). */
function timeDocker(host: string, args: string[]): Promise<{ ms: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn('docker', ['-H', host, ...args], { env: cliEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let bytes = 0;
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (bytes += chunk.length));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`docker ${args.join(' ')} on ${host} failed: ${stderr}`));
      else resolve({ ms: Number(process.hrtime.bigint() - started) / 1e6, bytes });
    });
  });
}

function engineCall(index: number, method: string, path: string, body?: unknown): Promise<string> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request({ host: `127.0.0.${index + 1}`, port: 2375, method, path, headers: payload ? { 'content-type': 'application/json' } : {} }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => ((res.statusCode ?? 500) < 300 ? resolve(text) : reject(new Error(`${method} ${path}: ${text}`))));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/** `count` stopped containers on an engine, created directly (setup, not measured). */
async function fillEngine(index: number, count: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next += 1;
      await engineCall(index, 'POST', '/containers/create', { Image: 'busybox:local', Cmd: ['true'], Labels: { bench: 'ps' } });
    }
  };
  await Promise.all(Array.from({ length: 6 }, worker));
}

async function startManager(port: number, engines: number[]): Promise<{ host: string; stop(): void }> {
  const discovery = engines.map((index) => `127.0.0.${index + 1}:2375`).join(',');
  const child = spawn(process.execPath, [SWARM, 'manage', '-H', `tcp://127.0.0.1:${port}`, discovery], { stdio: 'ignore' });
  const host = `tcp://127.0.0.1:${port}`;
  for (let attempt = 0; attempt < 150; attempt++) {
    try {
      const { stdout } = await run('docker', ['-H', host, 'info', '--format', '{{json .SystemStatus}}'], { env: cliEnv() });
      const healthy = (JSON.parse(stdout) as Array<[string, string]>).filter(([key, value]) => key.trim() === '└ Status' && value === 'Healthy');
      if (healthy.length === engines.length) return { host, stop: () => child.kill('SIGTERM') };
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  child.kill('SIGKILL');
  throw new Error(`manager on ${port} never saw ${engines.length} healthy engines`);
}

interface Case {
  name: string;
  front: number[];
  direct: number[];
}

/** Alternate front and direct so drifting load hits both alike. */
async function measure(name: string, front: () => Promise<number>, direct: () => Promise<number>): Promise<Case> {
  const result: Case = { name, front: [], direct: [] };
  await front();
  await direct();
  for (let round = 0; round < ROUNDS; round++) {
    result.front.push(await front());
    result.direct.push(await direct());
  }
  return result;
}

async function main(): Promise<void> {
  await run('bash', [TESTBED, 'up', '4', '--first', '42']);
  const managers: Array<{ stop(): void }> = [];
  try {
    await fillEngine(42, 300);
    await Promise.all([43, 44, 45].map((index) => fillEngine(index, 100)));
    const one = await startManager(23420, [42]);
    managers.push(one);
    const three = await startManager(23421, [43, 44, 45]);
    managers.push(three);

    const logger = (await run('docker', ['-H', engineHost(42), 'run', '-d', 'busybox:local', 'sh', '-c', `yes 0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz | head -c ${LOG_BYTES}`], { env: cliEnv() })).stdout.trim();
    await run('docker', ['-H', engineHost(42), 'wait', logger], { env: cliEnv() });
    await new Promise((resolve) => setTimeout(resolve, 2000));

    const runArgs = ['run', '-d', '--label', 'bench=run', 'busybox:local', 'true'];
    const cases = [
      await measure('docker run -d (1 engine)', async () => (await timeDocker(one.host, runArgs)).ms, async () => (await timeDocker(engineHost(42), runArgs)).ms),
      await measure('docker ps -a, 300 containers (manager over that engine)', async () => (await timeDocker(one.host, ['ps', '-a'])).ms, async () => (await timeDocker(engineHost(42), ['ps', '-a'])).ms),
      await measure('docker ps -a, 300 containers (manager over 3 engines × 100 vs 1 engine × 300)', async () => (await timeDocker(three.host, ['ps', '-a'])).ms, async () => (await timeDocker(engineHost(42), ['ps', '-a'])).ms),
      await measure(
        'docker logs, 50 MB',
        async () => {
          const { ms, bytes } = await timeDocker(one.host, ['logs', logger]);
          if (bytes !== LOG_BYTES) throw new Error(`logs through the manager gave ${bytes} bytes`);
          return ms;
        },
        async () => (await timeDocker(engineHost(42), ['logs', logger])).ms,
      ),
    ];
    const rows = cases.map((item) => {
      const front = median(item.front);
      const direct = median(item.direct);
      return `| ${item.name} | ${front.toFixed(1)} ms | ${direct.toFixed(1)} ms | ${(front / direct).toFixed(3)} |`;
    });
    const text = [
      '# Docker API front overhead',
      '',
      `Machine: ${machineDescription()}`,
      '',
      'Command: `npx tsc -b core && npx tsc -p test/bench && node test/bench/dist/api-overhead.js`',
      '',
      `The real docker CLI 28 (wall time per command, ${ROUNDS} rounds, front and direct alternating, medians) against \`swarm manage\` and against the same real engine (dockerd 20.10, vfs) directly. Engines 42-45 of the testbed; the 2-core machine is shared with other work, so single numbers are noisy.`,
      '',
      '| case | through swarm | engine directly | ratio |',
      '| --- | --- | --- | --- |',
      ...rows,
      '',
      'Targets: ratio ≤ 1.10 for run and logs; `ps` over 3 engines ≤ 1.5 × one engine\'s `ps`.',
      '',
    ].join('\n');
    writeFileSync(RESULTS, text);
    process.stdout.write(text);
  } finally {
    for (const manager of managers) manager.stop();
    await run('bash', [TESTBED, 'down', '--first', '42', '--count', '4']);
  }
}

await main();
