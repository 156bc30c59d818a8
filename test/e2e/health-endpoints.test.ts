import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestbed, type Testbed } from '../harness/engines.js';
import { startManager, type Manager } from '../harness/manager.js';
import { startEtcd, type Service } from '../harness/services.js';
import { docker } from '../mesos-double/swarm-cli.js';

// /_swarm/healthz and /_swarm/readyz, the probes an orchestrator (a unit's watchdog, a Kubernetes
// Deployment, a Docker HEALTHCHECK) asks each manager. Engine 200, etcd on 26316-26317 and managers on
// 26312-26315 and 28900-28903 belong to this file.
const ETCD_PORT = 26316; // and 26317, its peer port
const [PLAIN, PRIMARY, REPLICA, NO_STORE] = [26312, 26313, 26314, 26315] as const;
const [NO_ENGINE, TWO_NEEDED, SELF, OTHER] = [28900, 28901, 28902, 28903] as const;
let testbed: Testbed;
let etcd: Service;
const managers: Manager[] = [];

interface Answer {
  status: number;
  body: string;
}

function get(port: number, path: string, method = 'GET'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, timeout: 5000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function eventually(check: () => Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const engine = () => `${testbed.engines[0]!.host}:${testbed.engines[0]!.port}`;

function replicated(port: number): Promise<Manager> {
  return startManager({
    discovery: `etcd://127.0.0.1:${ETCD_PORT}/health`,
    port,
    expectNodes: 0,
    // No engine registers in this store: readiness here is about the role alone.
    args: ['--replication', '--advertise', `127.0.0.1:${port}`, '--replication-ttl', '3s', '--heartbeat', '1s', '--ready-min-nodes', '0'],
  });
}

beforeAll(async () => {
  testbed = await startTestbed({ first: 200, count: 1 });
  etcd = await startEtcd(ETCD_PORT);
});

afterAll(async () => {
  for (const manager of managers) await manager.stop();
  await etcd?.stop();
  await testbed?.stop();
});

describe('manager health endpoints', () => {
  it('a manager in front of its engines is alive and ready; HEAD works too', async () => {
    const manager = await startManager({ discovery: `nodes://${engine()}`, port: PLAIN, expectNodes: 1 });
    managers.push(manager);
    expect(await get(PLAIN, '/_swarm/healthz')).toEqual({ status: 200, body: 'ok\n' });
    const ready = await get(PLAIN, '/_swarm/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body.split('\n')).toEqual([
      '[+]shutdown ok: serving',
      `[+]discovery ok: 1 entries from nodes://${engine()}`,
      '[+]nodes ok: 1 of 1 node healthy',
      'readyz check passed',
      '',
    ]);
    expect((await get(PLAIN, '/_swarm/readyz', 'HEAD')).status).toBe(200);
    // /_ping stays the Docker API's
    expect(await get(PLAIN, '/_ping')).toEqual({ status: 200, body: 'OK' });
  });

  it('serves the process and cluster numbers the web view shows as metrics', async () => {
    const metric = (text: string, name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
    const before = (await get(PLAIN, '/_swarm/metrics')).body;
    const run = await docker(PLAIN, 'run', '-d', '--name', 'counted', 'busybox:local', 'sleep', '60');
    expect(run.code, run.stderr).toBe(0);
    try {
      const after = (await get(PLAIN, '/_swarm/metrics')).body;
      expect(metric(after, 'process_resident_memory_bytes')).toBeGreaterThan(10 * 1024 * 1024);
      expect(metric(after, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(1024 * 1024);
      expect(metric(after, 'process_open_fds')).toBeGreaterThan(3);
      expect(metric(after, 'nodejs_eventloop_lag_p99_seconds')).toBeGreaterThanOrEqual(0);
      expect(metric(after, 'process_start_time_seconds')).toBeLessThanOrEqual(Date.now() / 1000);
      expect(metric(after, 'swarm_containers{state="running"}')).toBe(metric(before, 'swarm_containers{state="running"}') + 1);
      // create and start at least
      expect(metric(after, 'swarm_events_total')).toBeGreaterThanOrEqual(metric(before, 'swarm_events_total') + 2);
    } finally {
      await docker(PLAIN, 'rm', '-f', 'counted');
    }
  });

  it('says a manager whose discovery does not answer is alive but not ready, and why', async () => {
    // nothing listens on port 1: the store never answers
    const manager = await startManager({ discovery: 'etcd://127.0.0.1:1/nowhere', port: NO_STORE, expectNodes: 0 });
    managers.push(manager);
    await eventually(async () => (await get(NO_STORE, '/_swarm/healthz')).status === 200, 'the manager listening');
    expect((await get(NO_STORE, '/_swarm/healthz')).status).toBe(200);
    const ready = await get(NO_STORE, '/_swarm/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body).toMatch(
      /^\[-\]discovery failed: (no answer from etcd:\/\/127\.0\.0\.1:1\/nowhere yet|etcd:\/\/127\.0\.0\.1:1\/nowhere: .+)$/m,
    );
    expect(ready.body.trimEnd().split('\n').pop()).toBe('readyz check failed');
  });

  it('a replicated primary and its replica are each ready, answering for themselves', async () => {
    const primary = await replicated(PRIMARY);
    managers.push(primary);
    await eventually(async () => (await get(PRIMARY, '/_swarm/readyz')).body.includes('[+]role ok: primary'), 'the first manager primary');
    const replica = await replicated(REPLICA);
    managers.push(replica);
    await eventually(
      async () => (await get(REPLICA, '/_swarm/readyz')).body.includes(`[+]role ok: replica of 127.0.0.1:${PRIMARY}`),
      'the second manager a ready replica',
    );
    expect((await get(REPLICA, '/_swarm/readyz')).status).toBe(200);
    expect((await get(REPLICA, '/_swarm/healthz')).status).toBe(200);
    // each scrape is the manager's own: the replica says it is one, the primary that it leads
    const roleOf = (text: string) => /^swarm_manager_role\{role="(\w+)"\} 1$/m.exec(text)?.[1];
    expect(roleOf((await get(REPLICA, '/_swarm/metrics')).body)).toBe('replica');
    expect(roleOf((await get(PRIMARY, '/_swarm/metrics')).body)).toBe('primary');
    const head = await get(REPLICA, '/_swarm/metrics', 'HEAD');
    expect(head).toEqual({ status: 200, body: '' });
    // a stopped primary hands the lock over: the replica becomes primary and stays ready
    await primary.stop();
    await eventually(async () => {
      const ready = await get(REPLICA, '/_swarm/readyz');
      return ready.body.includes('[+]role ok: primary');
    }, 'the replica taking over');
  });
});

describe('readiness counts the nodes', () => {
  it('is not ready while no node is healthy, and says how many are', async () => {
    // nothing listens on 127.0.0.1:9: the one node stays unhealthy
    const manager = await startManager({ discovery: 'nodes://127.0.0.1:9', port: NO_ENGINE, expectNodes: 0 });
    managers.push(manager);
    await eventually(async () => (await get(NO_ENGINE, '/_swarm/healthz')).status === 200, 'the manager listening');
    const ready = await get(NO_ENGINE, '/_swarm/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body).toContain('[-]nodes failed: 0 of 1 node healthy, 1 needed (--ready-min-nodes)\n');
    // liveness is another question: the process serves
    expect((await get(NO_ENGINE, '/_swarm/healthz')).status).toBe(200);
  });

  it('--ready-min-nodes sets the bar', async () => {
    const manager = await startManager({
      discovery: `nodes://${engine()},127.0.0.1:9`,
      port: TWO_NEEDED,
      expectNodes: 1,
      args: ['--ready-min-nodes', '2'],
    });
    managers.push(manager);
    const ready = await get(TWO_NEEDED, '/_swarm/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body).toContain('[-]nodes failed: 1 of 2 nodes healthy, 2 needed (--ready-min-nodes)\n');
  });
});

describe('a manager never adopts a manager as a node', () => {
  it('refuses its own listener and another manager, naming the address and the likely cause, and places on the engine', async () => {
    const other = await startManager({ discovery: `nodes://${engine()}`, port: OTHER, expectNodes: 1 });
    managers.push(other);
    const self = await startManager({
      discovery: `nodes://${engine()},127.0.0.1:${SELF},127.0.0.1:${OTHER}`,
      port: SELF,
      expectNodes: 1,
      // its own address refuses the first try (it connects before it listens): retry soon
      args: ['--engine-refresh-min-interval', '1s', '--engine-refresh-max-interval', '2s'],
    });
    managers.push(self);
    await eventually(async () => {
      const info = (await docker(SELF, 'info')).stdout;
      return (info.match(/is a swarm manager, not a Docker engine/g) ?? []).length === 2;
    }, 'both managers refused as nodes');
    const info = (await docker(SELF, 'info')).stdout;
    expect(info).toContain(`127.0.0.1:${SELF} is a swarm manager, not a Docker engine (its /info says ServerVersion swarm/`);
    expect(info).toContain('reaches its own listener there');
    expect(self.output()).toMatch(new RegExp(`refused a node.*127\\.0\\.0\\.1:${SELF}|127\\.0\\.0\\.1:${SELF}.*refused a node`));
    const names: string[] = [];
    try {
      for (let i = 0; i < 3; i++) {
        const run = await docker(SELF, 'run', '-d', '--name', `not-on-a-manager-${i}`, 'busybox:local', 'sleep', '30');
        expect(run.code, run.stderr).toBe(0);
        names.push(`not-on-a-manager-${i}`);
      }
      const placed = (await docker(SELF, 'ps', '--filter', 'name=not-on-a-manager', '--format', '{{.Names}}')).stdout.trim().split('\n');
      expect(placed.sort()).toEqual(names.map((name) => `node200/${name}`).sort());
    } finally {
      if (names.length > 0) await docker(SELF, 'rm', '-f', ...names);
    }
  });
});
