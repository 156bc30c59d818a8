import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestbed, type Testbed } from '../harness/engines.js';
import { startManager, type Manager } from '../harness/manager.js';
import { startEtcd, type Service } from '../harness/services.js';
import { docker } from '../mesos-double/swarm-cli.js';

// /_swarm/healthz and /_swarm/readyz, the probes an orchestrator (a unit's watchdog, a Kubernetes
// Deployment, a Docker HEALTHCHECK) asks each manager. Engine 200, etcd on 26316-26317 and managers on
// 26312-26315 belong to this file.
const ETCD_PORT = 26316; // and 26317, its peer port
const [PLAIN, PRIMARY, REPLICA, NO_STORE] = [26312, 26313, 26314, 26315] as const;
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
    args: ['--replication', '--advertise', `127.0.0.1:${port}`, '--replication-ttl', '3s', '--heartbeat', '1s'],
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
    // a stopped primary hands the lock over: the replica becomes primary and stays ready
    await primary.stop();
    await eventually(async () => {
      const ready = await get(REPLICA, '/_swarm/readyz');
      return ready.body.includes('[+]role ok: primary');
    }, 'the replica taking over');
  });
});
