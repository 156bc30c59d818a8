import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSwarm, type Swarm } from '@swarm/core';
import { ErrorCodes, isSwarmError } from '@swarm/plugin-sdk';
import { startEtcd, type Service } from '../../test/harness/services.js';

const run = promisify(execFile);
const ETCD_PORT = 23730;
const PORTS = [23740, 23741, 23742] as const;

async function roleRows(port: number): Promise<Array<[string, string]>> {
  const answer = await fetch(`http://127.0.0.1:${port}/info`, { signal: AbortSignal.timeout(2000) });
  const rows = ((await answer.json()) as { SystemStatus: Array<[string, string]> }).SystemStatus;
  return rows.filter(([key]) => key === 'Role' || key === 'Primary');
}

async function until(what: string, probe: () => Promise<boolean>, timeoutMs = 10_000): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    if (await probe().catch(() => false)) return Date.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

function replicatedSwarm(discovery: string, port: number): Promise<Swarm> {
  return createSwarm({
    cluster: { discovery, heartbeat: 1 },
    api: { hosts: [`tcp://127.0.0.1:${port}`] },
    replication: { enabled: true, advertise: `127.0.0.1:${port}`, ttl: '5s' },
  });
}

describe('replication in an embedded swarm', () => {
  it('refuses a discovery that cannot elect a primary, naming the stores that can', async () => {
    const attempt = createSwarm({
      cluster: { discovery: 'nodes://127.0.0.1:1' },
      replication: { enabled: true, advertise: '127.0.0.1:1' },
    });
    await expect(attempt).rejects.toSatisfy((error: unknown) => isSwarmError(error, ErrorCodes.NOT_SUPPORTED));
    await expect(attempt).rejects.toThrow(
      '--replication needs a key-value discovery store (zk://, etcd://) to elect a primary; "nodes://127.0.0.1:1" cannot',
    );
  });

  it('needs --advertise', async () => {
    await expect(createSwarm({ cluster: { discovery: 'etcd://127.0.0.1:1/x' }, replication: { enabled: true } })).rejects.toThrow(
      '--advertise address must be provided when using --leader-election',
    );
  });
});

describe('replicated swarms on a real etcd', () => {
  let etcd: Service;
  const swarms: Swarm[] = [];
  const [first, second, third] = PORTS;

  beforeAll(async () => {
    etcd = await startEtcd(ETCD_PORT);
  });

  afterAll(async () => {
    await Promise.all(swarms.map((swarm) => swarm.stop()));
    await etcd?.stop();
  });

  it('the first to start is primary; the other is a replica that shows it and forwards to it', async () => {
    const discovery = `etcd://${etcd.addr}/unit-replication`;
    swarms.push(await replicatedSwarm(discovery, first));
    await swarms[0]!.start({ api: true });
    await until('the first swarm to lead', async () => (await roleRows(first))[0]?.[1] === 'primary');
    swarms.push(await replicatedSwarm(discovery, second));
    await swarms[1]!.start({ api: true });
    await until('the replica to know the primary', async () => (await roleRows(second))[1]?.[1] === `127.0.0.1:${first}`);

    expect(await roleRows(first)).toEqual([['Role', 'primary']]);
    expect(await roleRows(second)).toEqual([
      ['Role', 'replica'],
      ['Primary', `127.0.0.1:${first}`],
    ]);

    const listed = await fetch(`http://127.0.0.1:${second}/v1.41/containers/json?all=1`);
    expect(listed.status).toBe(200);
    expect(await listed.json()).toEqual([]);
    // Only the replica was asked, so the primary counted the request because it was forwarded.
    const metrics = await (await fetch(`http://127.0.0.1:${first}/_swarm/metrics`)).text();
    expect(metrics).toMatch(/swarm_api_requests_total\{method="GET",route="[^"]*containers\/json[^"]*",status="200"\} 1/);
  });

  it('a primary that stops resigns: the replica leads at once, well within the TTL', async () => {
    await swarms[0]!.stop();
    const handover = await until('the replica to lead', async () => (await roleRows(second))[0]?.[1] === 'primary', 4000);
    console.log(`etcd: graceful stop of the primary -> new primary in ${handover} ms (TTL 5s)`);
    expect(await roleRows(second)).toEqual([['Role', 'primary']]);
  });

  it('a replica that reads its own address in the lock it does not hold answers "No elected primary cluster manager" instead of calling itself', async () => {
    // The lock written by hand (no lease of this manager): the campaign cannot take it, the follower reads our address.
    await run('etcdctl', ['--endpoints', `http://${etcd.addr}`, 'put', 'unit-stale/docker/swarm/leader', `127.0.0.1:${third}`], {
      env: { ...process.env, ETCDCTL_API: '3' },
    });
    swarms.push(await replicatedSwarm(`etcd://${etcd.addr}/unit-stale`, third));
    await swarms[2]!.start({ api: true });
    await until('the replica to read the lock', async () => (await roleRows(third))[1]?.[1] === `127.0.0.1:${third}`);
    expect((await roleRows(third))[0]).toEqual(['Role', 'replica']);
    const answer = await fetch(`http://127.0.0.1:${third}/v1.41/containers/json`, { signal: AbortSignal.timeout(5000) });
    expect(answer.status).toBe(500);
    expect(await answer.json()).toEqual({ message: 'No elected primary cluster manager' });
  });
});
