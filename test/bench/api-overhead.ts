/**
 * Overhead of the Docker API front: the real docker CLI against `swarm manage` versus against
 * the same real engine directly, measured in the same run (alternating, medians):
 *   - `docker run -d` round trip, `docker logs` of 50 MB: manager over engine 112 vs engine 112;
 *     `run` both with a container that exits at once (`true`) and with one that keeps running;
 *   - `docker ps -a` with 300 containers: manager over engine 112 vs engine 112, and a manager
 *     over engines 113-115 (100 containers each) vs engine 112's 300 and vs engine 113's 100
 *     (what a user of one engine sees: the cluster's list against one node's), and a static server
 *     replaying the manager's 300 rows vs engine 113's 100 (what the CLI alone costs for 3× the rows).
 * Also the manager's own CPU time (user + system, from /proc) per 50 MB of logs, which the
 * machine's load disturbs far less than wall times.
 * And the manager's settled RSS (issue 34): `swarm manage` as users start it (core/bin/swarm.js, the
 * launcher, which runs the bundled CLI) over engines 113-115 (300 containers), the default plugins,
 * read from /proc after all engines are healthy, a `docker info` and a `docker ps -a` and a few
 * seconds of quiet; BENCH_RSS_RUNS times (3), min / median / max, next to a bare `node` and a
 * `node:http` server (what any Node.js process of this machine holds).
 * Engines 112-115 (BENCH_API_FIRST=<i> takes i..i+3) and ports 25120-25123 (engine 112 is shared
 * with test/e2e/api-endpoints.test.ts: do not run both at once). Adds a section to test/bench/results/api-overhead.md, newest first.
 *
 * Every manager is started as users start `swarm`, through its launcher (core/bin/swarm.js), which
 * sets V8's flags and runs the bundled CLI.
 *
 * BENCH_SWARM_ROOT=<repository root> runs the manager of another built tree (e.g. a copy with a
 * proposed driver change) against the same engines and CLI. BENCH_RSS_BEFORE=<repository root>
 * measures the RSS of another built tree's manager too, alternating with this tree's (e.g. the
 * commit before a change, in a `git worktree` built with `npm run build`).
 *
 *   npm run build && npx tsc -p test/bench && node test/bench/dist/api-overhead.js
 */
import { execFile, spawn } from 'node:child_process';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { machineDescription, median } from './core-machine.js';

const run = promisify(execFile);
const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const TESTBED = here('../../testbed/testbed.sh');
// The launcher, as users start `swarm`: it sets V8's flags and runs the bundled CLI.
const SWARM = process.env['BENCH_SWARM_ROOT'] ? `${process.env['BENCH_SWARM_ROOT']}/core/bin/swarm.js` : here('../../../core/bin/swarm.js');
const ROOT = process.env['BENCH_SWARM_ROOT'] ?? here('../../..');
const RESULTS = here('../results/api-overhead.md');
const RSS_RUNS = Number(process.env['BENCH_RSS_RUNS'] ?? 3);
const RSS_BEFORE = process.env['BENCH_RSS_BEFORE'];
const RSS_PORT = 25122;
const FLOOR_PORT = 25123;
const RSS_SETTLE_MS = 5_000;
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 9);
const LOG_BYTES = 50 * 1024 * 1024;
// BENCH_API_FIRST moves the four engines (e.g. beside a test run that holds 112-115).
const ONE = Number(process.env['BENCH_API_FIRST'] ?? 112);
const THREE = [ONE + 1, ONE + 2, ONE + 3];
const KEPT_RUNS = 6;
const RUN_HEADING = '## Run ';
const NOTES_HEADING = '## Notes';

const engineHost = (index: number) => `tcp://127.0.0.${index + 1}:2375`;

/** Managers with access control, by host: the docker CLI talks to them with the bench caller's token (DOCKER_CONFIG). */
const ACCESS_CONFIG_DIRS = new Map<string, string>();

function cliEnv(host?: string): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env['DOCKER_API_VERSION'];
  const dockerConfig = host === undefined ? undefined : ACCESS_CONFIG_DIRS.get(host);
  if (dockerConfig) env['DOCKER_CONFIG'] = dockerConfig;
  return env;
}

interface Timed {
  ms: number;
  bytes: number;
  /** The first 256 bytes of stdout (a container ID for `run -d`). */
  head: string;
}

/** Wall time of one docker CLI command (stdout drained and counted, only its head kept). */
function timeDocker(host: string, args: string[]): Promise<Timed> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn('docker', ['-H', host, ...args], { env: cliEnv(host), stdio: ['ignore', 'pipe', 'pipe'] });
    let bytes = 0;
    let head = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      if (head.length < 256) head += chunk.toString('latin1', 0, Math.min(chunk.length, 256 - head.length));
      bytes += chunk.length;
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`docker ${args.join(' ')} on ${host} failed: ${stderr}`));
      else resolve({ ms: Number(process.hrtime.bigint() - started) / 1e6, bytes, head: head.trim() });
    });
  });
}

function engineCall(index: number, method: string, path: string, body?: unknown): Promise<string> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      { host: `127.0.0.${index + 1}`, port: 2375, method, path, headers: payload ? { 'content-type': 'application/json' } : {} },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => ((res.statusCode ?? 500) < 300 ? resolve(text) : reject(new Error(`${method} ${path}: ${text}`))));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/**
 * Wall time of one API call without the CLI (`tcp://host:port` as docker -H takes it), on a new
 * connection as the CLI makes one: the server's share of a `docker ps -a`.
 */
function timeApi(host: string, path: string, headers: Record<string, string> = {}): Promise<number> {
  const [address, port] = host.replace('tcp://', '').split(':');
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = request({ host: address, port: Number(port), path, agent: false, headers }, (res) => {
      res.on('data', () => undefined);
      res.on('end', () => resolve(performance.now() - started));
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * A server that answers every `docker ps -a` with the same bytes (the manager's answer, read
 * once): the docker CLI's own cost for that many rows, with no server work at all.
 */
async function startReplay(host: string): Promise<{ host: string; close(): void }> {
  const [address, port] = host.replace('tcp://', '').split(':');
  const rows = await new Promise<Buffer>((resolve, reject) => {
    request({ host: address, port: Number(port), path: '/v1.41/containers/json?all=1' }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve(Buffer.concat(chunks)));
    })
      .on('error', reject)
      .end();
  });
  const server = createServer((req, res) => {
    const ping = req.url?.endsWith('/_ping') ?? false;
    const body = ping ? Buffer.from('OK') : rows;
    res.writeHead(200, {
      'Content-Type': ping ? 'text/plain; charset=utf-8' : 'application/json',
      'Content-Length': body.length,
      'Api-Version': '1.41',
      Ostype: 'linux',
    });
    res.end(req.method === 'HEAD' ? undefined : body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { host: `tcp://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
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

/**
 * `docker run -d` timed, then (not timed) the engine left idle before the next command: dockerd
 * tears a container's exit down (network, mounts) after the CLI got its answer, and a next run
 * overlapping that work would be charged for it. An inspect waits for the teardown (it takes the
 * container's lock); `exits` says the container ends by itself, so its exit is awaited first.
 */
async function timeRun(host: string, args: string[], exits: boolean, started: string[]): Promise<number> {
  const { ms, head } = await timeDocker(host, args);
  if (!/^[0-9a-f]{64}$/.test(head)) throw new Error(`docker ${args.join(' ')} printed ${head}, not a container ID`);
  started.push(head);
  if (exits) await engineCall(ONE, 'POST', `/containers/${head}/wait`);
  await engineCall(ONE, 'GET', `/containers/${head}/json`);
  return ms;
}

interface BenchManager {
  host: string;
  pid: number;
  /** Settles once the process has ended. */
  exited: Promise<void>;
  /** User + system CPU time the manager process used so far. */
  cpuMs(): number;
  stop(): void;
}

function processCpuMs(pid: number): number {
  // /proc/<pid>/stat: fields 14 and 15 (utime, stime) in clock ticks, after the `(comm)` field.
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

async function startManager(port: number, engines: number[], cli = SWARM, extraArgs: readonly string[] = []): Promise<BenchManager> {
  const discovery = engines.map((index) => `127.0.0.${index + 1}:2375`).join(',');
  const child = spawn(process.execPath, [cli, 'manage', '-H', `tcp://127.0.0.1:${port}`, ...extraArgs, discovery], { stdio: 'ignore' });
  const host = `tcp://127.0.0.1:${port}`;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  for (let attempt = 0; attempt < 150; attempt++) {
    try {
      const { stdout } = await run('docker', ['-H', host, 'info', '--format', '{{json .SystemStatus}}'], { env: cliEnv(host) });
      const healthy = (JSON.parse(stdout) as Array<[string, string]>).filter(
        ([key, value]) => key.trim() === '└ Status' && value === 'Healthy',
      );
      if (healthy.length === engines.length) {
        return {
          host,
          pid: child.pid!,
          exited,
          cpuMs: () => processCpuMs(child.pid!),
          stop: () => child.kill('SIGTERM'),
        };
      }
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  child.kill('SIGKILL');
  throw new Error(`manager on ${port} never saw ${engines.length} healthy engines`);
}

/**
 * A manager with the built-in access plugins on (issue 33's cost target): the bench caller is
 * known by a bearer token (kube's token file; the docker CLI sends it from its config's
 * HttpHeaders), bound to role edit over everything by `rules`, and held to `baseline` by `policy`.
 */
async function startAccessManager(port: number, engines: number[]): Promise<BenchManager> {
  const dir = mkdtempSync(join(tmpdir(), 'swarm-bench-access-'));
  const token = randomBytes(16).toString('hex');
  writeFileSync(join(dir, 'tokens.csv'), `${token},bench,1000,"bench"\n`);
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ HttpHeaders: { Authorization: `Bearer ${token}` } }));
  writeFileSync(
    join(dir, 'swarm.config.json'),
    JSON.stringify({
      access: {
        authn: [['token-file', { path: 'tokens.csv' }]],
        authz: [['rules', { bindings: [{ group: 'bench', role: 'edit', scope: 'all' }] }]],
        admission: [['policy', { default: 'baseline' }]],
      },
    }),
  );
  ACCESS_CONFIG_DIRS.set(`tcp://127.0.0.1:${port}`, dir);
  return startManager(port, engines, SWARM, ['--config', join(dir, 'swarm.config.json')]);
}

/** The Authorization header the bench caller sends to a manager with access control. */
function benchTokenHeader(host: string): Record<string, string> {
  const dir = ACCESS_CONFIG_DIRS.get(host);
  if (!dir) return {};
  return (JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as { HttpHeaders: Record<string, string> }).HttpHeaders;
}

/** Resident memory of a process from /proc, in kB: all of it, anonymous, and file-backed (mostly the node binary's pages). */
interface Rss {
  total: number;
  anon: number;
  file: number;
}

function processRss(pid: number): Rss {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
  return { total: kb('VmRSS'), anon: kb('RssAnon'), file: kb('RssFile') };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, RSS_SETTLE_MS));

/**
 * The settled RSS of `swarm manage` from the tree at `root`, started as users start it (its
 * launcher): all engines healthy, one `docker info` and one `docker ps -a`, then a few seconds of quiet.
 */
async function managerRss(root: string): Promise<Rss> {
  const manager = await startManager(RSS_PORT, THREE, `${root}/core/bin/swarm.js`);
  try {
    await run('docker', ['-H', manager.host, 'info'], { env: cliEnv() });
    await run('docker', ['-H', manager.host, 'ps', '-a'], { env: cliEnv(), maxBuffer: 16 * 1024 * 1024 });
    await settle();
    return processRss(manager.pid);
  } finally {
    manager.stop();
    await manager.exited;
  }
}

/** The same reading for a Node.js process that runs `script` (the floor any Node.js program of this machine starts from). */
async function nodeRss(script: string, exercise?: () => Promise<void>): Promise<Rss> {
  const child = spawn(process.execPath, ['-e', script], { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await new Promise((resolve) => setTimeout(resolve, 500));
    await exercise?.();
    await settle();
    return processRss(child.pid!);
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

const HTTP_FLOOR = `require('node:http').createServer((req, res) => res.end(JSON.stringify({ ok: true, url: req.url }))).listen(${FLOOR_PORT}, '127.0.0.1')`;

/** Which CLI the launcher of `root` runs: the bundle while it is newer than tsc's output (core/bin/swarm.js). */
function launcherRuns(root: string): string {
  const mtime = (path: string) => statSync(`${root}/core/${path}`, { throwIfNoEntry: false })?.mtimeMs ?? Number.NaN;
  return mtime('dist/bundle/swarm.js') >= mtime('dist/.tsbuildinfo')
    ? 'the bundled CLI'
    : 'the compiled CLI (the bundle is older: run `npm run build`)';
}

interface RssRow {
  name: string;
  values: Rss[];
}

async function measureRss(): Promise<RssRow[]> {
  const trees = [{ name: `swarm manage (${launcherRuns(ROOT)})`, root: ROOT }];
  if (RSS_BEFORE) {
    trees.push({ name: `swarm manage before: commit ${await commitLabel(RSS_BEFORE)} (${launcherRuns(RSS_BEFORE)})`, root: RSS_BEFORE });
  }
  const rows: RssRow[] = [
    ...trees.map((tree) => ({ name: tree.name, values: [] as Rss[] })),
    { name: 'bare `node`, idle', values: [] },
    { name: '`node:http` server after 20 answers', values: [] },
  ];
  for (let round = 0; round < RSS_RUNS; round++) {
    // Alternating, so drifting load and page cache hit every tree alike.
    for (const [index, tree] of trees.entries()) rows[index]!.values.push(await managerRss(tree.root));
    rows[trees.length]!.values.push(await nodeRss('setInterval(() => {}, 1000)'));
    rows[trees.length + 1]!.values.push(
      await nodeRss(HTTP_FLOOR, async () => {
        for (let call = 0; call < 20; call++) await timeApi(`tcp://127.0.0.1:${FLOOR_PORT}`, '/v1.41/info');
      }),
    );
  }
  return rows;
}

function rssTable(rows: readonly RssRow[]): string[] {
  const mb = (kb: number) => (kb / 1024).toFixed(1);
  return [
    '| process | RSS min / median / max | anonymous (median) | file-backed (median) | runs (MB) |',
    '| --- | --- | --- | --- | --- |',
    ...rows.map(({ name, values }) => {
      const totals = values.map((value) => value.total);
      return `| ${name} | ${mb(Math.min(...totals))} / ${mb(median(totals))} / ${mb(Math.max(...totals))} MB | ${mb(median(values.map((value) => value.anon)))} MB | ${mb(median(values.map((value) => value.file)))} MB | ${totals.map(mb).join(', ')} |`;
    }),
  ];
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

function commitLabel(cwd = here('../../..')): Promise<string> {
  return run('git', ['describe', '--always', '--dirty'], { cwd }).then(
    ({ stdout }) => stdout.trim(),
    () => 'unknown',
  );
}

/** The `## ` sections of the results file so far: hand-written notes, and earlier runs (newest first). */
function earlierSections(): { notes: string[]; runs: string[] } {
  if (!existsSync(RESULTS)) return { notes: [], runs: [] };
  const sections = `\n${readFileSync(RESULTS, 'utf8')}`
    .split('\n## ')
    .slice(1)
    .map((section) => `## ${section.trimEnd()}`);
  return {
    notes: sections.filter((section) => section.startsWith(NOTES_HEADING)),
    runs: sections.filter((section) => section.startsWith(RUN_HEADING)),
  };
}

function resultsText(runSection: string): string {
  const earlier = earlierSections();
  return [
    '# Docker API front overhead',
    '',
    'Command: `npm run bench:api` (= `npm run build && tsc -p test/bench && node test/bench/dist/api-overhead.js`; with `BENCH_RSS_BEFORE=<a built tree>` the RSS of that tree is measured alongside)',
    '',
    `The real docker CLI 28 (wall time per command, ${ROUNDS} rounds, front and direct alternating, medians) against \`swarm manage\` and against the same real engine (dockerd 20.10, vfs) directly, engines ${ONE}-${THREE[THREE.length - 1]} of the testbed. The 2-core machine is shared with other work (see the load averages), so wall times are noisy; the manager's CPU time per 50 MB of logs is the steadier measure of the front's own cost. Each run adds a section (newest first); \`## Notes\` sections are kept as written.`,
    '',
    "Targets (#4, #13): ratio ≤ 1.10 for run (exiting and long-running) and logs; `ps -a` over 3 engines × 100 ≤ 1.10 × one engine's `ps -a` of 100. (#34) The manager's settled RSS over 3 engines × 100 containers ≤ 50 MB. (#33) With access control on, `run -d` and `ps -a` ≤ 1.05 × the same build without it (the rows whose 'engine directly' column is the manager without access control).",
    '',
    ...earlier.notes.map((section) => `${section}\n`),
    runSection,
    ...earlier.runs.slice(0, KEPT_RUNS - 1).map((section) => `\n${section}`),
    '',
  ].join('\n');
}

async function main(): Promise<void> {
  await run('bash', [TESTBED, 'up', '4', '--first', String(ONE)]);
  const managers: BenchManager[] = [];
  const closers: Array<() => void> = [];
  try {
    await fillEngine(ONE, 300);
    await Promise.all(THREE.map((index) => fillEngine(index, 100)));
    const one = await startManager(25120, [ONE]);
    managers.push(one);
    const three = await startManager(25121, THREE);
    managers.push(three);
    const oneAccess = await startAccessManager(25124, [ONE]);
    managers.push(oneAccess);
    const threeAccess = await startAccessManager(25125, THREE);
    managers.push(threeAccess);
    const rss = await measureRss();
    process.stdout.write(`${rssTable(rss).join('\n')}\n`);

    const logger = (
      await run(
        'docker',
        [
          '-H',
          engineHost(ONE),
          'run',
          '-d',
          'busybox:local',
          'sh',
          '-c',
          `yes 0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz | head -c ${LOG_BYTES}`,
        ],
        { env: cliEnv() },
      )
    ).stdout.trim();
    await run('docker', ['-H', engineHost(ONE), 'wait', logger], { env: cliEnv() });
    await new Promise((resolve) => setTimeout(resolve, 2000));

    const loadBefore = loadavg();
    const started = new Date().toISOString();
    const logsCpu: number[] = [];
    const runArgs = ['run', '-d', '--label', 'bench=run', 'busybox:local', 'true'];
    const keepRunning = ['run', '-d', '--label', 'bench=run', 'busybox:local', 'sleep', '3600'];
    const sleepers: string[] = [];
    const replay = await startReplay(three.host);
    closers.push(replay.close);
    const cases = [
      await measure(
        'docker run -d (1 engine)',
        () => timeRun(one.host, runArgs, true, []),
        () => timeRun(engineHost(ONE), runArgs, true, []),
      ),
      await measure(
        'docker run -d, container keeps running (1 engine)',
        () => timeRun(one.host, keepRunning, false, sleepers),
        () => timeRun(engineHost(ONE), keepRunning, false, sleepers),
      ),
      await measure(
        'docker ps -a, 300 containers (manager over that engine)',
        async () => (await timeDocker(one.host, ['ps', '-a'])).ms,
        async () => (await timeDocker(engineHost(ONE), ['ps', '-a'])).ms,
      ),
      await measure(
        'docker ps -a, 300 containers (manager over 3 engines × 100 vs 1 engine × 300)',
        async () => (await timeDocker(three.host, ['ps', '-a'])).ms,
        async () => (await timeDocker(engineHost(ONE), ['ps', '-a'])).ms,
      ),
      await measure(
        'docker ps -a, manager over 3 engines × 100 vs 1 engine × 100',
        async () => (await timeDocker(three.host, ['ps', '-a'])).ms,
        async () => (await timeDocker(engineHost(THREE[0]!), ['ps', '-a'])).ms,
      ),
      await measure(
        "docker ps -a, a static server replaying the manager's 300 rows vs 1 engine × 100 (the CLI's own floor)",
        async () => (await timeDocker(replay.host, ['ps', '-a'])).ms,
        async () => (await timeDocker(engineHost(THREE[0]!), ['ps', '-a'])).ms,
      ),
      await measure(
        'GET /containers/json?all=1 without the CLI, manager over 3 engines × 100 vs 1 engine × 100',
        () => timeApi(three.host, '/v1.41/containers/json?all=1'),
        () => timeApi(engineHost(THREE[0]!), '/v1.41/containers/json?all=1'),
      ),
      await measure(
        'docker run -d with access control (authz-rules, admission-policy, a token) vs the same build without (1 engine)',
        () => timeRun(oneAccess.host, runArgs, true, []),
        () => timeRun(one.host, runArgs, true, []),
      ),
      await measure(
        'docker ps -a with access control vs the same build without (3 engines × 100)',
        async () => (await timeDocker(threeAccess.host, ['ps', '-a'])).ms,
        async () => (await timeDocker(three.host, ['ps', '-a'])).ms,
      ),
      await measure(
        'GET /containers/json?all=1 without the CLI, with access control vs without (3 engines × 100)',
        () => timeApi(threeAccess.host, '/v1.41/containers/json?all=1', benchTokenHeader(threeAccess.host)),
        () => timeApi(three.host, '/v1.41/containers/json?all=1'),
      ),
      await measure(
        'docker logs, 50 MB',
        async () => {
          const cpuBefore = one.cpuMs();
          const { ms, bytes } = await timeDocker(one.host, ['logs', logger]);
          logsCpu.push(one.cpuMs() - cpuBefore);
          if (bytes !== LOG_BYTES) throw new Error(`logs through the manager gave ${bytes} bytes`);
          return ms;
        },
        async () => (await timeDocker(engineHost(ONE), ['logs', logger])).ms,
      ),
    ];
    for (const id of sleepers) await engineCall(ONE, 'DELETE', `/containers/${id}?force=1`);
    const rows = cases.map((item) => {
      const front = median(item.front);
      const direct = median(item.direct);
      return `| ${item.name} | ${front.toFixed(1)} ms | ${direct.toFixed(1)} ms | ${(front / direct).toFixed(3)} |`;
    });
    const load = (values: number[]) => values.map((value) => value.toFixed(2)).join(' / ');
    const section = [
      `${RUN_HEADING}${started} (commit ${await commitLabel()})`,
      '',
      `Machine: ${machineDescription()}; load average at the start ${load(loadBefore)}, at the end ${load(loadavg())}`,
      '',
      ...(process.env['BENCH_SWARM_ROOT']
        ? [`Manager built in ${process.env['BENCH_SWARM_ROOT']} (BENCH_SWARM_ROOT), not this tree.`, '']
        : []),
      '| case | through swarm | engine directly | ratio |',
      '| --- | --- | --- | --- |',
      ...rows,
      '',
      `Manager CPU (user + system) per \`docker logs\` of 50 MB: median ${median(logsCpu.slice(1)).toFixed(0)} ms (runs: ${logsCpu.map((value) => value.toFixed(0)).join(', ')} ms; the first is the warm-up).`,
      '',
      `Settled RSS (issue 34, target ≤ 50 MB): the manager over engines ${THREE.join(', ')} (3 × 100 containers, default plugins), read ${RSS_SETTLE_MS / 1000} s after a \`docker info\` and a \`docker ps -a\` once all were healthy; ${RSS_RUNS} runs, alternating.`,
      '',
      ...rssTable(rss),
    ].join('\n');
    const text = resultsText(section);
    writeFileSync(RESULTS, text);
    process.stdout.write(`${section}\n`);
  } finally {
    for (const manager of managers) manager.stop();
    for (const close of closers) close();
    await run('bash', [TESTBED, 'down', '--first', String(ONE), '--count', '4']);
  }
}

await main();
