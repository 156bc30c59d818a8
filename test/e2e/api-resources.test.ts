import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { docker, dockerOk, startApiCluster, type ApiCluster } from './api-support.js';

// Engines 47-48 behind `swarm manage` on port 23407: networks, volumes, disk usage and prune.
let cluster: ApiCluster;
let host: string;

beforeAll(async () => {
  cluster = await startApiCluster(47, 2, 23407);
  host = cluster.host;
});

afterAll(async () => {
  await cluster?.stop();
});

describe('networks and volumes', () => {
  it('creates, lists with node/ names, connects and removes a network', async () => {
    const created = await docker(host, ['network', 'create', 'appnet']);
    expect(created.stderr).toBe('');
    const listed = await dockerOk(host, ['network', 'ls', '--filter', 'name=appnet', '--format', '{{.Name}}']);
    const full = listed.trim();
    expect(full).toMatch(/^node4[78]\/appnet$/);
    const node = full.split('/')[0]!;
    await dockerOk(host, ['run', '-d', '--name', 'netted', '-e', `constraint:node==${node}`, 'busybox:local', 'sleep', '600']);
    await dockerOk(host, ['network', 'connect', full, 'netted']);
    const networks = await dockerOk(host, ['inspect', '-f', '{{range $k, $v := .NetworkSettings.Networks}}{{$k}} {{end}}', 'netted']);
    expect(networks).toContain('appnet');
    await dockerOk(host, ['network', 'disconnect', full, 'netted']);
    expect((await dockerOk(host, ['network', 'inspect', '-f', '{{.Name}}', full])).trim()).toBe('appnet');
    await dockerOk(host, ['network', 'rm', full]);
    const gone = await docker(host, ['network', 'inspect', full]);
    expect(gone.code).not.toBe(0);
  });

  it('creates, lists, inspects and removes a volume', async () => {
    await dockerOk(host, ['volume', 'create', '--label', 'suite=vol', 'datavol']);
    const listed = (await dockerOk(host, ['volume', 'ls', '--filter', 'label=suite=vol', '--format', '{{.Name}}'])).trim().split('\n');
    expect(listed.length).toBeGreaterThanOrEqual(1);
    for (const name of listed) expect(name).toMatch(/^node4[78]\/datavol$/);
    expect((await dockerOk(host, ['volume', 'inspect', '-f', '{{.Driver}}', listed[0]!])).trim()).toBe('local');
    for (const name of listed) await dockerOk(host, ['volume', 'rm', name]);
    expect((await dockerOk(host, ['volume', 'ls', '--filter', 'label=suite=vol', '-q'])).trim()).toBe('');
  });

  it('answers system df and prune with combined numbers', async () => {
    const df = await dockerOk(host, ['system', 'df', '--format', '{{.Type}}']);
    expect(df).toContain('Containers');
    const pruned = await dockerOk(host, ['container', 'prune', '-f']);
    expect(pruned).toContain('Total reclaimed space');
  });
});
