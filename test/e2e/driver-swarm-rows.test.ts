import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ContainerInspect, ContainerSummary } from '@swarm/plugin-sdk/docker';
import { rowFromInspect } from '../../plugins/driver-swarm/src/container-row.js';
import { startTestbed, type Testbed } from '../harness/engines.js';
import { docker } from './driver-swarm-support.js';

// engine 22: the driver builds `docker ps` rows from one inspect; the engine's own list is the reference
const FIRST = 22;

async function engineJson<T>(addr: string, path: string): Promise<T> {
  const response = await fetch(`http://${addr}${path}`);
  expect(response.status).toBe(200);
  return (await response.json()) as T;
}

/** Durations move while we read; everything else must match exactly. */
function comparable(row: ContainerSummary): ContainerSummary {
  const ports = (row['Ports'] as Array<Record<string, unknown>>).map((port) => JSON.stringify(port)).sort();
  const status = (row.Status ?? '').replace(/Less than a second|About a minute|About an hour|\d+ (seconds?|minutes|hours)/, 'SOME TIME');
  return { ...row, Ports: ports, Status: status };
}

describe('docker ps rows built from an inspect, checked against a real engine', () => {
  let testbed: Testbed;
  let host: string;
  let addr: string;

  beforeAll(async () => {
    testbed = await startTestbed({ first: FIRST, count: 1 });
    addr = testbed.engines[0]!.addr;
    host = `tcp://${addr}`;
    await docker(
      host,
      'run',
      '-d',
      '--name',
      'db',
      '-l',
      'role=db',
      '-p',
      '18080:80',
      '-p',
      '19000/udp',
      '--expose',
      '7000',
      'busybox:local',
      'sh',
      '-c',
      'echo "a b" && sleep 600',
    );
    await docker(host, 'run', '-d', '--name', 'web', '--link', 'db:database', '-v', '/data', 'busybox:local', 'sleep', '600');
    await docker(host, 'create', '--name', 'fresh', 'busybox:local', 'true');
    await docker(host, 'run', '-d', '--name', 'done', 'busybox:local', 'sh', '-c', 'exit 3');
    await docker(host, 'wait', 'done');
    await docker(host, 'run', '-d', '--name', 'frozen', 'busybox:local', 'sleep', '600');
    await docker(host, 'pause', 'frozen');
  });

  afterAll(async () => {
    await testbed?.stop();
  });

  it('matches GET /containers/json?all=1 for running, linked, created, exited and paused containers', async () => {
    const listed = await engineJson<ContainerSummary[]>(addr, '/containers/json?all=1');
    expect(listed.map((row) => row.Names[0]).sort()).toEqual(['/db', '/done', '/fresh', '/frozen', '/web']);
    for (const row of listed) {
      const inspect = await engineJson<ContainerInspect>(addr, `/containers/${row.Id}/json`);
      expect(comparable(rowFromInspect(inspect, row)), row.Names[0]).toEqual(comparable(row));
    }
    const statuses = Object.fromEntries(listed.map((row) => [row.Names[0], row.Status]));
    expect(statuses['/done']).toMatch(/^Exited \(3\) /);
    expect(statuses['/frozen']).toMatch(/^Up .* \(Paused\)$/);
    expect(statuses['/fresh']).toBe('Created');
  });

  it('keeps the names links give a container only from the row it had', async () => {
    const [db] = await engineJson<ContainerSummary[]>(
      addr,
      '/containers/json?all=1&filters=' + encodeURIComponent(JSON.stringify({ name: ['^/db$'] })),
    );
    expect(db!.Names.sort()).toEqual(['/db', '/web/database']);
    const inspect = await engineJson<ContainerInspect>(addr, `/containers/${db!.Id}/json`);
    expect(rowFromInspect(inspect, undefined).Names).toEqual(['/db']);
    expect(rowFromInspect(inspect, db).Names.sort()).toEqual(['/db', '/web/database']);
  });
});
