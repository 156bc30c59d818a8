// What an external engine AuthZ plugin on a Unix socket adds per request (issue: "≤ 2 ms per
// request at p50"), measured in one run against a baseline:
//   1. through swarm: the same requests to a manager without and one with
//      `--authorization-plugin unix:///.../bench-authz.sock` (test/authz-plugin's plugin, not
//      recording), both over the same real engine; alternating, sequential requests on a kept-alive
//      connection, p50 per run. GET /v1.41/containers/json?all=1 and GET /v1.41/version.
//   2. the authorizer alone (@swarm/authz-docker's authorize, and authorize + review, i.e. the
//      AuthZReq and AuthZRes round trips a buffered answer costs) against the plugin socket.
// BENCH_RUNS (5) runs of BENCH_REQUESTS (1000) requests each; min / median / max of the runs' p50.
// Engine 232 (127.0.0.233), ports 27010-27011. Writes test/bench/results/authz-plugin.md.
//
//   npm run build && node test/bench/authz-plugin-overhead.mjs
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startAuthzPlugin } from '../authz-plugin/authz-plugin.mjs';

const run = promisify(execFile);
const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const TESTBED = here('../testbed/testbed.sh');
const SWARM = here('../../core/dist/cli/bin.js');
const RESULTS = here('./results/authz-plugin.md');
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 1000);
const ENGINE = 232;
const PORTS = { plain: 27010, authz: 27011 };
const PATHS = ['/v1.41/containers/json?all=1', '/v1.41/version'];

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const spread = (values) => ({ min: Math.min(...values), median: median(values), max: Math.max(...values) });
const fmt = (s, digits = 3) => `${s.min.toFixed(digits)} / ${s.median.toFixed(digits)} / ${s.max.toFixed(digits)}`;

function get(agent, port, path) {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent }, (res) => {
      res.on('data', () => undefined);
      res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`${path}: ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.end();
  });
}

/** p50 (ms) of `REQUESTS` sequential GETs on one kept-alive connection, after 50 unmeasured. */
async function p50Of(port, path) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  for (let i = 0; i < 50; i++) await get(agent, port, path);
  const times = [];
  for (let i = 0; i < REQUESTS; i++) {
    const started = performance.now();
    await get(agent, port, path);
    times.push(performance.now() - started);
  }
  agent.destroy();
  return median(times);
}

async function repeat(count, call) {
  for (let i = 0; i < count; i++) await call();
}

async function p50OfCalls(call) {
  await repeat(50, call);
  const times = [];
  for (let i = 0; i < REQUESTS; i++) {
    const started = performance.now();
    await call();
    times.push(performance.now() - started);
  }
  return median(times);
}

async function startManager(port, args) {
  const child = spawn(process.execPath, [SWARM, 'manage', '-H', `tcp://127.0.0.1:${port}`, ...args, `127.0.0.${ENGINE + 1}:2375`], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`manager exited: ${output}`);
    const healthy = await new Promise((resolve) => {
      request({ host: '127.0.0.1', port, path: '/info' }, (res) => {
        let text = '';
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve(text.includes('"Healthy"')));
      })
        .on('error', () => resolve(false))
        .end();
    });
    if (healthy) return child;
    if (Date.now() > deadline) throw new Error(`manager on ${port} not healthy: ${output}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const dir = mkdtempSync(join(tmpdir(), 'swarm-authz-bench-'));
const socketPath = join(dir, 'bench-authz.sock');
const plugin = await startAuthzPlugin({ socketPath, record: false });
await run('bash', [TESTBED, 'up', '1', '--first', String(ENGINE)]);
const managers = [];
try {
  // a few containers so the list is a real answer
  for (let i = 0; i < 5; i++) await run('docker', ['-H', `tcp://127.0.0.${ENGINE + 1}:2375`, 'create', 'busybox:local', 'true']);
  managers.push(await startManager(PORTS.plain, []));
  managers.push(await startManager(PORTS.authz, ['--authorization-plugin', `unix://${socketPath}`]));

  const { createDockerAuthorizer } = await import('@swarm/authz-docker');
  const silent = {
    level: 'silent',
    trace() {},
    debug() {},
    info() {},
    warn() {},
    error() {},
    child() {
      return silent;
    },
  };
  const authorizer = await createDockerAuthorizer({ options: { plugin: `unix://${socketPath}` }, configDir: '/', logger: silent });
  const accessRequest = {
    caller: { user: 'alice', groups: [], method: 'TLS' },
    action: 'container.list',
    wire: {
      method: 'GET',
      uri: '/v1.41/containers/json?all=1',
      headers: { 'user-agent': 'Docker-Client/28.2.2 (linux)', host: '127.0.0.1' },
      peerCertificates: [],
    },
  };
  const answer = {
    statusCode: 200,
    headers: { 'content-type': 'application/json', 'api-version': '1.41' },
    body: new TextEncoder().encode('[]\n'),
  };

  // what one request through the manager costs the plugin: AuthZReq, and AuthZRes once the host reviews
  const before = { ...plugin.counts };
  await repeat(20, () => get(undefined, PORTS.authz, PATHS[0]));
  const perRequest = (path) => ((plugin.counts[path] ?? 0) - (before[path] ?? 0)) / 20;
  const callsPerRequest = { req: perRequest('/AuthZPlugin.AuthZReq'), res: perRequest('/AuthZPlugin.AuthZRes') };

  const rows = {};
  for (const path of PATHS) rows[path] = { plain: [], authz: [] };
  const alone = { authorize: [], both: [] };
  for (let runIndex = 0; runIndex < RUNS; runIndex++) {
    for (const path of PATHS) {
      // alternate which goes first, so a drift in the machine's load falls on both sides
      const order = runIndex % 2 === 0 ? ['plain', 'authz'] : ['authz', 'plain'];
      for (const side of order) rows[path][side].push(await p50Of(PORTS[side], path));
    }
    alone.authorize.push(await p50OfCalls(() => authorizer.authorize(accessRequest)));
    alone.both.push(
      await p50OfCalls(async () => {
        await authorizer.authorize(accessRequest);
        await authorizer.review(accessRequest, answer);
      }),
    );
    process.stdout.write(`run ${runIndex + 1}/${RUNS} done\n`);
  }
  authorizer.close();

  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  const lines = [
    '# AuthZ plugin overhead (@swarm/authz-docker)',
    '',
    `Machine: ${cpus().length} × ${cpu}, Node ${process.version}, load average ${loadavg()
      .map((v) => v.toFixed(2))
      .join(' / ')}, ${new Date().toISOString()}.`,
    `${RUNS} runs × ${REQUESTS} sequential requests on a kept-alive connection; each cell is min / median / max over the runs of the run's p50 (ms).`,
    'Manager: `swarm manage` over one real dockerd 20.10 (engine 232), with and without `--authorization-plugin unix://…/bench-authz.sock` (test/authz-plugin, not recording). Target: ≤ 2 ms added at p50.',
    `Plugin calls per request through the manager in this run: ${callsPerRequest.req} AuthZReq, ${callsPerRequest.res} AuthZRes.`,
    '',
    '| request | no plugin p50 | with plugin p50 | added p50 (median run) | ratio |',
    '| --- | --- | --- | --- | --- |',
  ];
  for (const path of PATHS) {
    const plain = spread(rows[path].plain);
    const authz = spread(rows[path].authz);
    const added = spread(rows[path].authz.map((value, i) => value - rows[path].plain[i]));
    lines.push(
      `| GET ${path} | ${fmt(plain)} | ${fmt(authz)} | ${added.median.toFixed(3)} (${fmt(added)}) | ${(authz.median / plain.median).toFixed(2)} |`,
    );
  }
  lines.push(
    '',
    'The authorizer alone, against the same plugin socket (what each request pays for the round trips):',
    '',
    '| calls | p50 (ms) |',
    '| --- | --- |',
    `| authorize (AuthZReq) | ${fmt(spread(alone.authorize))} |`,
    `| authorize + review (AuthZReq + AuthZRes) | ${fmt(spread(alone.both))} |`,
    '',
  );
  writeFileSync(RESULTS, `${lines.join('\n')}\n`);
  process.stdout.write(`${lines.join('\n')}\n`);
} finally {
  for (const child of managers) child.kill('SIGTERM');
  await run('bash', [TESTBED, 'down', '--first', String(ENGINE), '--count', '1']).catch(() => undefined);
  await plugin.close();
  rmSync(dir, { recursive: true, force: true });
}
