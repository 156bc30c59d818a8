import { describe, expect, it } from 'vitest';
import type { ContainerInspect, ContainerSummary } from '@swarm/plugin-sdk/docker';
import { inspectedContainer, type EngineContainer } from '../src/engine-container.js';
import { EngineNode, type NodeChangeListener } from '../src/engine-node.js';
import { rowFromInspect } from '../src/container-row.js';
import { JsonPool } from '../src/shared-json.js';

const listener: NodeChangeListener = { containerChanged: () => undefined, resourcesChanged: () => undefined };
const node = new EngineNode({
  addr: '10.0.0.1:2375',
  ip: '10.0.0.1',
  engineEndpoint: { protocol: 'http', host: '10.0.0.1', port: 2375 },
  overcommitPercent: 5,
  failureRetry: 3,
  listener,
  json: new JsonPool(),
});
node.applySpecs({ ID: 'ID-n1', Name: 'n1', NCPU: 4, MemTotal: 2 ** 30, Driver: 'vfs' }, { Version: '20.10.24' });

/** The shape of a dockerd 20.10 inspect (trimmed to what varies or repeats). */
function inspectOf(id: string, name: string, ip: string): ContainerInspect {
  return JSON.parse(
    JSON.stringify({
      Id: id,
      Created: '2026-12-02T10:00:00.123456789Z',
      Path: 'sleep',
      Args: ['86400'],
      State: {
        Status: 'running',
        Running: true,
        Paused: false,
        Pid: 4242,
        ExitCode: 0,
        StartedAt: '2026-12-02T10:00:01Z',
        FinishedAt: '0001-01-01T00:00:00Z',
      },
      Image: 'sha256:' + 'ab'.repeat(32),
      Name: `/${name}`,
      HostConfig: {
        Binds: null,
        CpuShares: 512,
        Memory: 0,
        NetworkMode: 'default',
        PortBindings: { '80/tcp': [{ HostIp: '', HostPort: '8080' }] },
        MaskedPaths: ['/proc/asound', '/proc/kcore'],
        LogConfig: { Type: 'json-file', Config: {} },
      },
      Mounts: [],
      Config: {
        Hostname: id.slice(0, 12),
        Env: ['PATH=/usr/bin:/bin'],
        Cmd: ['sleep', '86400'],
        Image: 'busybox:local',
        Labels: { tier: 'web' },
        ExposedPorts: { '80/tcp': {} },
      },
      NetworkSettings: {
        Ports: { '80/tcp': [{ HostIp: '0.0.0.0', HostPort: '8080' }] },
        Networks: {
          bridge: {
            NetworkID: 'net'.repeat(20),
            EndpointID: `ep-${id}`,
            Gateway: '172.17.0.1',
            IPAddress: ip,
            IPPrefixLen: 16,
            Links: null,
          },
        },
      },
    }),
  ) as ContainerInspect;
}

function containerOf(inspect: ContainerInspect): EngineContainer {
  return inspectedContainer(node, rowFromInspect(inspect, undefined, Date.parse('2026-12-02T10:05:00Z')), inspect, node.cpus);
}

describe('shared JSON values', () => {
  const pool = new JsonPool();
  const shared = <T>(value: T): T => pool.share(value);
  it('gives one frozen copy of equal values, equal to the input, and leaves the input as it was', () => {
    const first = { a: [1, 'x', null], b: { c: true } };
    const second = JSON.parse(JSON.stringify(first)) as typeof first;
    const one = shared(first);
    expect(one).toEqual(first);
    expect(Object.keys(one)).toEqual(['a', 'b']);
    expect(shared(second)).toBe(one);
    expect(shared(one)).toBe(one);
    expect(Object.isFrozen(one) && Object.isFrozen(one.a) && Object.isFrozen(one.b)).toBe(true);
    expect(Object.isFrozen(first) || Object.isFrozen(first.a)).toBe(false);
    // parts are shared with other values holding them
    expect(shared({ other: { c: true } }).other).toBe(one.b);
  });

  it('tells apart values that differ in a value, a key, key order, or being an array', () => {
    const base = shared({ a: 1, b: '2' });
    expect(shared({ a: 1, b: '3' })).not.toBe(base);
    expect(shared({ a: 1, c: '2' })).not.toBe(base);
    expect(shared({ b: '2', a: 1 })).not.toBe(base);
    expect(shared({ b: '2', a: 1 })).toEqual({ b: '2', a: 1 });
    expect(Array.isArray(shared({ 0: 'x' }))).toBe(false);
    expect(shared(['x'])).toEqual(['x']);
    expect(shared([])).not.toBe(shared({}));
  });

  it('keeps a "__proto__" key as data', () => {
    const value = JSON.parse('{"__proto__": {"polluted": true}, "x": 1}') as Record<string, unknown>;
    const copy = shared(value);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.keys(copy)).toEqual(['__proto__', 'x']);
    expect(JSON.stringify(copy)).toBe('{"__proto__":{"polluted":true},"x":1}');
  });
});

describe('containers built from an inspect', () => {
  const inspectA = inspectOf('a'.repeat(64), 'web1', '172.17.0.2');
  const inspectB = inspectOf('b'.repeat(64), 'web2', '172.17.0.3');
  const expectedRow = rowFromInspect(inspectOf('a'.repeat(64), 'web1', '172.17.0.2'), undefined, Date.parse('2026-12-02T10:05:00Z'));
  const a = containerOf(inspectA);
  const b = containerOf(inspectB);

  it('answer the same row, config and inspect as without sharing', () => {
    const fresh = inspectOf('a'.repeat(64), 'web1', '172.17.0.2');
    expect(a.summary).toEqual(expectedRow);
    expect(JSON.stringify(a.summary)).toBe(JSON.stringify(expectedRow));
    expect(a.config).toEqual({ ...fresh.Config, HostConfig: fresh.HostConfig });
    expect(a.reservedCpus).toBe(2);
    expect(a.inspect).toEqual({
      Id: fresh.Id,
      Name: fresh.Name,
      Image: fresh.Image,
      Created: fresh['Created'],
      Path: fresh['Path'],
      Args: fresh['Args'],
      State: fresh.State,
      Config: fresh.Config,
      HostConfig: fresh.HostConfig,
      NetworkSettings: { Ports: (fresh['NetworkSettings'] as { Ports: unknown }).Ports },
      Mounts: [],
    });
    expect(a.labels).toEqual({ tier: 'web' });
    expect([a.name, a.image, a.imageId, a.state]).toEqual(['web1', 'busybox:local', fresh.Image, 'running']);
  });

  it('share what repeats between containers and between row and config', () => {
    expect(b.config.HostConfig).toBe(a.config.HostConfig);
    expect(b.config.Env).toBe(a.config.Env);
    expect(b.summary.Labels).toBe(a.config.Labels);
    expect(b.summary['Ports']).toBe(a.summary['Ports']);
    expect(Object.isFrozen(a.config.HostConfig)).toBe(true);
  });

  it('keep what is their own apart', () => {
    const networks = (container: EngineContainer) =>
      (container.summary['NetworkSettings'] as { Networks: { bridge: { IPAddress: string } } }).Networks.bridge;
    expect(networks(a).IPAddress).toBe('172.17.0.2');
    expect(networks(b).IPAddress).toBe('172.17.0.3');
    expect(a.config.Hostname).toBe('aaaaaaaaaaaa');
    expect(b.names).toEqual(['/web2']);
  });

  it('take a newer STATUS in place, the rest of the row as it was', () => {
    const container = containerOf(inspectOf('c'.repeat(64), 'web3', '172.17.0.4'));
    const row = { ...container.summary };
    container.takeStatus('Up 2 minutes');
    expect(container.summary).toEqual({ ...row, Status: 'Up 2 minutes' });
    expect(container.state).toBe('running');
  });

  it('take a newer row without changing the config', () => {
    const row: ContainerSummary = { ...expectedRow, State: 'exited', Status: 'Exited (0) 1 second ago' };
    const next = a.withRow(row);
    expect(next.config).toBe(a.config);
    expect(next.summary).toEqual(row);
    expect(next.state).toBe('exited');
  });
});
