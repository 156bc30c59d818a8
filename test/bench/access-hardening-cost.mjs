// What judging requests as the engine will execute them costs (issue 42: "the cost on run -d and
// ps, <= 5 %"): the same requests to a manager built from this tree and to one built from an earlier
// tree (BENCH_BEFORE_ROOT, a `git worktree` of the commit before the change, built with
// `npx tsc -b && node core/scripts/bundle-cli.mjs`), both with the same access control (TLS, the
// `tls` authenticator, the `rules` authorizer, the `policy` admission controller at baseline, an
// audit log) over the same real engine, alternating. A `run -d` is a create and a start as the docker
// CLI sends them; a `ps` is `GET /containers/json?all=1` with 50 of the caller's containers.
// BENCH_RUNS (3) runs of BENCH_REQUESTS (100) run -d and BENCH_PS_REQUESTS (500) ps; min / median /
// max of the runs' p50.
// Engine 211 (127.0.0.212), ports 27020-27021. Writes test/bench/results/access-hardening.md.
//
//   npm run build && BENCH_BEFORE_ROOT=/tmp/swarm-before node test/bench/access-hardening-cost.mjs
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const TESTBED = here('../testbed/testbed.sh');
const RESULTS = here('./results/access-hardening.md');
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 100);
const PS_REQUESTS = Number(process.env.BENCH_PS_REQUESTS ?? 500);
const PS_WARMUP = 50;
const BEFORE = process.env.BENCH_BEFORE_ROOT;
const ENGINE = 211;
const PORTS = { before: 27020, now: 27021 };
const LISTED = 50;

if (!BEFORE) {
  console.error('BENCH_BEFORE_ROOT must name a built tree of the commit to compare with');
  process.exit(2);
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const spread = (values) => ({ min: Math.min(...values), median: median(values), max: Math.max(...values) });
const fmt = (s) => `${s.min.toFixed(2)} / ${s.median.toFixed(2)} / ${s.max.toFixed(2)}`;

async function certificates(dir) {
  const ssl = (...args) => run('openssl', args, { cwd: dir });
  await ssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '2',
    '-subj',
    '/CN=bench-ca',
    '-keyout',
    'ca-key.pem',
    '-out',
    'ca.pem',
  );
  for (const [name, subject, usage] of [
    ['server', '/CN=127.0.0.1/O=swarm-managers', 'serverAuth,clientAuth'],
    ['alice', '/CN=alice/O=team-a', 'clientAuth'],
  ]) {
    await ssl('req', '-newkey', 'rsa:2048', '-nodes', '-subj', subject, '-keyout', `${name}-key.pem`, '-out', `${name}.csr`);
    writeFileSync(join(dir, `${name}.ext`), `extendedKeyUsage=${usage}\nsubjectAltName=IP:127.0.0.1,IP:127.0.0.${ENGINE + 1}\n`);
    await ssl(
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca-key.pem',
      '-CAcreateserial',
      '-days',
      '2',
      '-extfile',
      `${name}.ext`,
      '-out',
      `${name}.pem`,
    );
  }
  // the engine serves the same certificate (testbed.sh --tls reads server-cert.pem)
  writeFileSync(join(dir, 'server-cert.pem'), readFileSync(join(dir, 'server.pem')));
}

const CONFIG = `export default {
  access: {
    authn: ['tls'],
    authz: [['rules', { bindings: [{ group: 'team-a', role: 'edit', scope: 'team' }] }]],
    admission: [['policy', { default: 'baseline' }]],
    audit: { path: 'audit.log' },
  },
};
`;

function startManager(root, port, dir) {
  const child = spawn(
    'node',
    [
      join(root, 'core/bin/swarm.js'),
      'manage',
      '--config',
      join(dir, 'swarm.config.js'),
      '-H',
      `tcp://127.0.0.1:${port}`,
      '--tlsverify',
      '--tlscacert',
      join(dir, 'ca.pem'),
      '--tlscert',
      join(dir, 'server.pem'),
      '--tlskey',
      join(dir, 'server-key.pem'),
      `nodes://127.0.0.${ENGINE + 1}:2376`,
    ],
    { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let output = '';
  child.stderr.on('data', (chunk) => (output += chunk));
  return { child, output: () => output };
}

function caller(dir) {
  const agent = new Agent({
    keepAlive: true,
    maxSockets: 1,
    ca: readFileSync(join(dir, 'ca.pem')),
    cert: readFileSync(join(dir, 'alice.pem')),
    key: readFileSync(join(dir, 'alice-key.pem')),
  });
  return (port, method, path, body) =>
    new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
      const req = request(
        {
          host: '127.0.0.1',
          port,
          method,
          path,
          agent,
          headers: payload
            ? { 'Content-Type': 'application/json', 'Content-Length': payload.length, 'User-Agent': 'bench' }
            : { 'User-Agent': 'bench' },
        },
        (res) => {
          const chunks = [];
          res.on('data', (chunk) => chunks.push(chunk));
          res.on('end', () => resolve({ status: res.statusCode, text: Buffer.concat(chunks).toString() }));
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
}

async function healthy(call, port) {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const info = await call(port, 'GET', '/v1.41/info').catch(() => undefined);
    if (info?.status === 200 && JSON.parse(info.text).SystemStatus?.some(([k, v]) => k.trim() === '└ Status' && v === 'Healthy')) return;
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  throw new Error(`manager on ${port} found no healthy engine`);
}

const CREATE = { Image: 'busybox:local', Cmd: ['true'], HostConfig: { NetworkMode: 'none' } };

/** p50 in ms of `count` sequential `run -d`s (create + start) and of as many `ps`. */
async function measure(call, port, tag) {
  const runs = [];
  const made = [];
  for (let i = 0; i < REQUESTS; i++) {
    const started = process.hrtime.bigint();
    const created = await call(port, 'POST', `/v1.41/containers/create?name=bench-${tag}-${i}`, CREATE);
    if (created.status !== 201) throw new Error(`create: ${created.status} ${created.text}`);
    const id = JSON.parse(created.text).Id;
    const startedAnswer = await call(port, 'POST', `/v1.41/containers/${id}/start`);
    if (startedAnswer.status !== 204) throw new Error(`start: ${startedAnswer.status} ${startedAnswer.text}`);
    runs.push(Number(process.hrtime.bigint() - started) / 1e6);
    made.push(id);
  }
  // ps over a steady list: the caller's LISTED containers
  for (const id of made.slice(LISTED)) await call(port, 'DELETE', `/v1.41/containers/${id}?force=1`);
  // a ps takes a millisecond: many more of them, after a few unmeasured ones, for a p50 that holds still
  for (let i = 0; i < PS_WARMUP; i++) await call(port, 'GET', '/v1.41/containers/json?all=1');
  const lists = [];
  for (let i = 0; i < PS_REQUESTS; i++) {
    const started = process.hrtime.bigint();
    const answer = await call(port, 'GET', '/v1.41/containers/json?all=1');
    if (answer.status !== 200) throw new Error(`ps: ${answer.status}`);
    lists.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  for (const id of made.slice(0, LISTED)) await call(port, 'DELETE', `/v1.41/containers/${id}?force=1`);
  return { run: median(runs), ps: median(lists) };
}

const dir = mkdtempSync(join(tmpdir(), 'swarm-bench-access-'));
const managers = [];
try {
  await certificates(dir);
  writeFileSync(join(dir, 'swarm.config.js'), CONFIG);
  await run('bash', [TESTBED, 'up', '1', '--first', String(ENGINE), '--tls', dir]);
  const call = caller(dir);
  managers.push(startManager(BEFORE, PORTS.before, dir), startManager(here('../..'), PORTS.now, dir));
  await Promise.all([healthy(call, PORTS.before), healthy(call, PORTS.now)]);
  const results = { before: { run: [], ps: [] }, now: { run: [], ps: [] } };
  for (let round = 0; round < RUNS; round++) {
    for (const which of round % 2 === 0 ? ['before', 'now'] : ['now', 'before']) {
      const measured = await measure(call, PORTS[which], `${which}-${round}`);
      results[which].run.push(measured.run);
      results[which].ps.push(measured.ps);
      console.log(`round ${round} ${which}: run -d p50 ${measured.run.toFixed(2)} ms, ps p50 ${measured.ps.toFixed(2)} ms`);
    }
  }
  const row = (what) => {
    const before = spread(results.before[what]);
    const now = spread(results.now[what]);
    return `| ${what === 'run' ? '`run -d` (create + start)' : `\`ps -a\` (${LISTED} containers)`} | ${fmt(before)} | ${fmt(now)} | ${(now.median / before.median).toFixed(3)} |`;
  };
  const [one, five] = loadavg();
  const section = [
    `## ${new Date().toISOString()}`,
    '',
    `Machine: ${cpus().length} × ${cpus()[0]?.model.trim()}, Node ${process.version}, load average ${one.toFixed(2)} / ${five.toFixed(2)}.`,
    `Before: ${BEFORE} (built); now: this tree. Both with TLS, \`tls\` authn, \`rules\` authz, \`policy\` admission at baseline, an audit log, over one dockerd 20.10 (engine ${ENGINE}).`,
    `${RUNS} runs × ${REQUESTS} sequential run -d and ${PS_REQUESTS} ps (after ${PS_WARMUP} unmeasured), alternating trees; each cell is min / median / max over the runs of the run's p50 (ms).`,
    '',
    '| request | before | now | ratio (medians) |',
    '| --- | --- | --- | --- |',
    row('run'),
    row('ps'),
    '',
  ].join('\n');
  let previous = '';
  try {
    previous = readFileSync(RESULTS, 'utf8').replace(/^# .*\n\n/, '');
  } catch {
    // first run
  }
  writeFileSync(RESULTS, `# Access hardening's cost on run -d and ps (issue 42)\n\n${section}\n${previous}`);
  console.log(section);
} finally {
  for (const { child } of managers) child.kill('SIGTERM');
  await run('bash', [TESTBED, 'down', '--first', String(ENGINE), '--count', '1']).catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
}
