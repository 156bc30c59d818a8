import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { startManager, type Manager } from '../harness/manager.js';
import { startEtcd, type Service } from '../harness/services.js';
import { eventually } from './discovery-kv-support.js';
import { docker, readRole } from './replication-support.js';

const run = promisify(execFile);
const STORE_PORT = 23704;
const MANAGER_PORT = 23750;

describe('a replicated manager whose store is unreachable at start', () => {
  let manager: Manager | undefined;
  let store: Service | undefined;

  afterAll(async () => {
    await manager?.stop();
    await store?.stop();
  });

  it('runs as a replica without a primary, says so to clients, and leads once the store appears', async () => {
    manager = await startManager({
      discovery: `etcd://127.0.0.1:${STORE_PORT}/late`,
      port: MANAGER_PORT,
      expectNodes: 0,
      args: ['--replication', '--advertise', `127.0.0.1:${MANAGER_PORT}`, '--replication-ttl', '5s', '--heartbeat', '1s'],
    });
    await eventually(async () => (await readRole(MANAGER_PORT)).role === 'replica', 'the manager to answer /info', 30_000);
    const info = await docker(manager.host, 'info');
    expect(info).toMatch(/^ Role: replica$/m);
    expect(info).toMatch(/^ Primary: $/m);
    const refused = await run('docker', ['-H', manager.host, 'ps'], { timeout: 20_000 }).then(
      () => '',
      (error: { stderr?: string }) => error.stderr ?? '',
    );
    expect(refused).toContain('No elected primary cluster manager');
    expect(manager.output()).toContain('Leader Election: store failure, retrying');

    store = await startEtcd(STORE_PORT);
    const storeUpAt = Date.now();
    await eventually(async () => (await readRole(MANAGER_PORT)).role === 'primary', 'the manager to lead once the store is up', 30_000);
    console.log(`etcd: primary ${Date.now() - storeUpAt} ms after the store became reachable`);
    expect(await docker(manager.host, 'info')).toMatch(/^ Role: primary$/m);
    expect(await docker(manager.host, 'ps', '-a', '-q')).toBe('');
  });
});
