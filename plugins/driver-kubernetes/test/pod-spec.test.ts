import { describe, expect, it } from 'vitest';
import type { ContainerConfig } from '@swarm/plugin-sdk/docker';
import { buildPod, randomPortRequests } from '../src/pod-spec.js';

function pod(
  config: Partial<ContainerConfig>,
  extra: { hostPorts?: Map<string, number>; networks?: Map<string, string[]>; pvc?: boolean } = {},
) {
  return buildPod({
    id: 'a'.repeat(64),
    dockerName: 'web_1',
    podName: 'web-1-abcdef12',
    config: { Image: 'busybox', ...config },
    node: 'n1',
    bindNow: false,
    createdAt: '2026-12-04T00:00:00.000Z',
    namedVolumes: extra.pvc ? 'persistentVolumeClaim' : 'emptyDir',
    hostPorts: extra.hostPorts ?? new Map(),
    networks: extra.networks ?? new Map(),
  });
}

describe('buildPod', () => {
  it('makes one container, unbound, for swarm to bind, with the docker name and config kept', () => {
    const { pod: made } = pod({
      Cmd: ['sleep', '1'],
      Entrypoint: ['/bin/sh', '-c'],
      Env: ['A=1', 'B'],
      Labels: { team: 'blue', 'com.docker.swarm.constraints': '["node==n1"]' },
    });
    expect(made.spec?.containers).toHaveLength(1);
    expect(made.spec?.schedulerName).toBe('swarm');
    expect(made.spec?.nodeName).toBeUndefined();
    expect(made.spec?.restartPolicy).toBe('Never');
    expect(made.spec?.containers[0]).toMatchObject({
      image: 'busybox',
      command: ['/bin/sh', '-c'],
      args: ['sleep', '1'],
      env: [
        { name: 'A', value: '1' },
        { name: 'B', value: '' },
      ],
    });
    expect(made.metadata?.labels).toEqual({ 'swarm.io/managed': 'true', team: 'blue' });
    expect(made.metadata?.annotations?.['swarm.io/container-name']).toBe('web_1');
    expect(JSON.parse(made.metadata!.annotations!['swarm.io/config']!).Labels['com.docker.swarm.constraints']).toBe('["node==n1"]');
    expect(made.metadata?.finalizers).toEqual(['swarm.io/keep-until-removed']);
  });

  it('maps resources, ports, restart policies, users, volumes and the TTY', () => {
    const { pod: made, claims } = pod(
      {
        Tty: true,
        OpenStdin: true,
        User: '1000:50',
        ExposedPorts: { '80/tcp': {}, '53/udp': {} },
        HostConfig: {
          Memory: 128 * 1024 * 1024,
          CpuShares: 2,
          NanoCpus: 2_500_000_000,
          PortBindings: { '80/tcp': [{ HostIp: '', HostPort: '8080' }], '53/udp': [{ HostPort: '' }] },
          RestartPolicy: { Name: 'on-failure', MaximumRetryCount: 0 },
          Binds: ['/srv/data:/data:ro', 'cache:/cache'],
          Privileged: true,
          CapAdd: ['NET_ADMIN'],
          NetworkMode: 'host',
        },
      },
      { hostPorts: new Map([['53/udp', 33000]]), pvc: true },
    );
    const container = made.spec!.containers[0]!;
    expect(container.resources).toEqual({ requests: { memory: '134217728', cpu: '2' }, limits: { memory: '134217728', cpu: '2500m' } });
    expect(container.ports).toEqual([
      { containerPort: 80, protocol: 'TCP', hostPort: 8080 },
      { containerPort: 53, protocol: 'UDP', hostPort: 33000 },
    ]);
    expect(made.spec?.restartPolicy).toBe('OnFailure');
    expect(container.securityContext).toEqual({
      privileged: true,
      capabilities: { add: ['NET_ADMIN'], drop: [] },
      runAsUser: 1000,
      runAsGroup: 50,
    });
    expect(container.tty).toBe(true);
    expect(container.stdin).toBe(true);
    expect(made.spec?.hostNetwork).toBe(true);
    expect(made.spec?.volumes).toEqual([
      { name: 'vol-0', hostPath: { path: '/srv/data', type: 'DirectoryOrCreate' } },
      { name: 'vol-1', persistentVolumeClaim: { claimName: 'swarm-cache' } },
    ]);
    expect(container.volumeMounts).toEqual([
      { name: 'vol-0', mountPath: '/data', readOnly: true },
      { name: 'vol-1', mountPath: '/cache' },
    ]);
    expect(claims).toEqual(['cache']);
  });

  it('asks for random host ports where docker would pick them', () => {
    expect(
      randomPortRequests({
        Image: 'x',
        ExposedPorts: { '80/tcp': {}, '443/tcp': {} },
        HostConfig: { PublishAllPorts: true, PortBindings: { '443/tcp': [{ HostPort: '8443' }] } },
      }),
    ).toEqual(['80/tcp']);
    expect(randomPortRequests({ Image: 'x', HostConfig: { PortBindings: { '90/tcp': [{ HostPort: '' }] } } })).toEqual(['90/tcp']);
  });

  it.each([
    [{ HostConfig: { Devices: [{ PathOnHost: '/dev/null' }] } }, '--device is not supported with the kubernetes driver'],
    [{ HostConfig: { Links: ['db:db'] } }, '--link is not supported with the kubernetes driver: use a user-defined network'],
    [{ HostConfig: { PidMode: 'host' } }, '--pid is not supported'],
    [{ HostConfig: { RestartPolicy: { Name: 'on-failure', MaximumRetryCount: 3 } } }, '--restart on-failure:3 is not supported'],
    [{ HostConfig: { LogConfig: { Type: 'syslog', Config: {} } } }, '--log-driver is not supported'],
    [{ HostConfig: { NetworkMode: 'container:abc' } }, '--network container:abc is not supported'],
    [{ User: 'nobody' }, 'invalid --user "nobody": Kubernetes takes numeric IDs'],
    [{ Healthcheck: { Test: ['CMD', 'true'] } }, '--health-cmd is not supported'],
  ])('refuses %j, naming the option', (config, message) => {
    expect(() => pod(config as Partial<ContainerConfig>)).toThrow(message);
  });

  it('accepts the zero values the docker CLI sends for options the user did not set', () => {
    expect(() =>
      pod({
        HostConfig: {
          Devices: [],
          Links: null as unknown as string[],
          PidMode: '',
          MemorySwappiness: -1,
          MemorySwap: 0,
          ShmSize: 0,
          LogConfig: { Type: '', Config: {} },
          OomKillDisable: false,
          PidsLimit: 0,
        },
      }),
    ).not.toThrow();
  });

  it('labels the pod with the names it answers to on a user-defined network', () => {
    const networks = new Map([['shop_default', ['web_1', 'web']]]);
    const { pod: made } = pod({ HostConfig: { NetworkMode: 'shop_default' } }, { networks });
    expect(made.metadata?.labels?.['alias.swarm.io/web']).toBe('true');
    expect(made.metadata?.labels?.['alias.swarm.io/web_1']).toBeUndefined();
    expect(JSON.parse(made.metadata?.annotations?.['swarm.io/networks'] ?? '')).toEqual({ shop_default: ['web_1', 'web'] });
  });
});
