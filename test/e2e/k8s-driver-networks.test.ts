import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestbed, type Testbed } from '../harness/engines.js';
import { startManager, type Manager } from '../harness/manager.js';
import { startKubernetesDouble, type KubernetesDouble } from '../k8s-double/index.js';
import { docker, waitUntil } from '../mesos-double/swarm-cli.js';

// Docker networks over one namespace through `swarm manage -c kubernetes`, with the real docker
// CLI and docker-compose: what the CLI parses in `network ls`/`inspect`, and the headless Services
// made for names and aliases, which must go with the last container answering to them.
// Engines 240-241 and ports 26200-26209 belong to this file.
const PORT = 26200;
const exec = promisify(execFile);
const work = mkdtempSync(join(tmpdir(), 'swarm-k8s-networks-'));
let testbed: Testbed;
let double: KubernetesDouble;
let manager: Manager;
let core: k8s.CoreV1Api;

const d = (...args: string[]) => docker(PORT, ...args);

const startK8sManager = () =>
  startManager({
    discovery: 'k8s://',
    port: PORT,
    expectNodes: 2,
    args: ['-c', 'kubernetes', '--cluster-opt', `kubernetes.kubeconfig=${double.kubeconfig}`],
  });

/** Names of the Services in the namespace, sorted. */
async function serviceNames(): Promise<string[]> {
  return (await core.listNamespacedService({ namespace: 'default' })).items.map((item) => item.metadata?.name ?? '').sort();
}

/** Names of the alias Services swarm made, sorted. */
async function aliasServices(): Promise<string[]> {
  const list = await core.listNamespacedService({ namespace: 'default', labelSelector: 'swarm.io/alias-service=true' });
  return list.items.map((item) => item.metadata?.name ?? '').sort();
}

beforeAll(async () => {
  testbed = await startTestbed({ first: 240, count: 2 });
  double = await startKubernetesDouble({
    nodes: testbed.engines.map((engine) => ({ engine: { host: engine.host, port: engine.port } })),
  });
  const config = new k8s.KubeConfig();
  config.loadFromFile(double.kubeconfig);
  core = config.makeApiClient(k8s.CoreV1Api);
  manager = await startK8sManager();
});

afterAll(async () => {
  await manager?.stop();
  await double?.stop();
  await testbed?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe('docker networks on the kubernetes driver', () => {
  it('lists and inspects the built-in bridge with a creation time the CLI parses', async () => {
    const ls = await d('network', 'ls', '--format', '{{.Name}} {{.Driver}} {{.CreatedAt}}');
    expect(ls.code, ls.stderr).toBe(0);
    expect(ls.stdout).toMatch(/^bridge bridge \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}/);
    const inspect = await d('network', 'inspect', 'bridge');
    expect(inspect.code, inspect.stderr).toBe(0);
    const [bridge] = JSON.parse(inspect.stdout) as Array<{ Created: string; Name: string }>;
    expect(bridge!.Name).toBe('bridge');
    // the namespace's age (its kube-root-ca.crt), not the time of this call
    const rootCa = await core.readNamespacedConfigMap({ name: 'kube-root-ca.crt', namespace: 'default' });
    expect(Date.parse(bridge!.Created)).toBe(new Date(rootCa.metadata!.creationTimestamp!).getTime());
    expect((await d('network', 'create', 'dated')).code).toBe(0);
    try {
      const user = JSON.parse((await d('network', 'inspect', 'dated')).stdout)[0] as { Created: string };
      expect(Math.abs(Date.parse(user.Created) - Date.now())).toBeLessThan(60_000);
      expect((await d('network', 'ls', '--filter', 'name=dated', '--format', '{{.Name}}')).stdout).toBe('dated');
    } finally {
      await d('network', 'rm', 'dated');
    }
  });

  it('removes the Services of a name and an alias added by network connect when the container goes', async () => {
    expect((await d('network', 'create', 'shopnet')).code).toBe(0);
    try {
      const run = await d('run', '-d', '--name', 'cart', '--network', 'shopnet', 'busybox:local', 'sleep', '600');
      expect(run.code, run.stderr).toBe(0);
      expect(await aliasServices()).toEqual(['cart']);
      const connect = await d('network', 'connect', '--alias', 'basket', 'shopnet', 'cart');
      expect(connect.code, connect.stderr).toBe(0);
      expect(await aliasServices()).toEqual(['basket', 'cart']);
      const networks = JSON.parse((await d('inspect', '-f', '{{json .NetworkSettings.Networks}}', 'cart')).stdout) as Record<
        string,
        { Aliases: string[] | null }
      >;
      expect(networks['shopnet']?.Aliases).toEqual(['basket']);
      expect((await d('rm', '-f', 'cart')).code).toBe(0);
      expect(await aliasServices()).toEqual([]);
    } finally {
      await d('rm', '-f', 'cart');
      await d('network', 'rm', 'shopnet');
    }
  });

  it('keeps an alias Service while another container answers to it, and releases names on disconnect', async () => {
    expect((await d('network', 'create', 'backend')).code).toBe(0);
    try {
      for (const name of ['db-a', 'db-b']) {
        const run = await d('run', '-d', '--name', name, '--network', 'backend', '--network-alias', 'db', 'busybox:local', 'sleep', '600');
        expect(run.code, run.stderr).toBe(0);
      }
      expect(await aliasServices()).toEqual(['db', 'db-a', 'db-b']);
      expect((await d('rm', '-f', 'db-a')).code).toBe(0);
      expect(await aliasServices()).toEqual(['db', 'db-b']);
      const disconnect = await d('network', 'disconnect', 'backend', 'db-b');
      expect(disconnect.code, disconnect.stderr).toBe(0);
      expect(await aliasServices()).toEqual([]);
      expect((await d('network', 'inspect', '-f', '{{len .Containers}}', 'backend')).stdout).toBe('0');
      const connect = await d('network', 'connect', '--alias', 'db', 'backend', 'db-b');
      expect(connect.code, connect.stderr).toBe(0);
      expect(await aliasServices()).toEqual(['db', 'db-b']);
      const answering = await core.readNamespacedService({ name: 'db', namespace: 'default' });
      expect(answering.spec?.selector).toEqual({ 'alias.swarm.io/db': 'true' });
    } finally {
      await d('rm', '-f', 'db-a', 'db-b');
      await d('network', 'rm', 'backend');
    }
    expect(await aliasServices()).toEqual([]);
  });

  it('leaves no pods, Services or network records after compose up, scale and down, run after run', { timeout: 300_000 }, async () => {
    const dir = join(work, 'store');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'docker-compose.yml'),
      [
        "version: '2'",
        'services:',
        '  web:',
        '    image: busybox:local',
        '    command: httpd -f -p 80 -h /www',
        // neither command handles SIGTERM: without this, each down waits out docker's 10 s twice
        '    stop_grace_period: 1s',
        '  worker:',
        '    image: busybox:local',
        '    command: sleep 600',
        '    stop_grace_period: 1s',
        '    depends_on: [web]',
        '',
      ].join('\n'),
    );
    const compose = (...args: string[]) =>
      exec('docker-compose', args, { cwd: dir, env: { ...process.env, DOCKER_HOST: `tcp://127.0.0.1:${PORT}` }, timeout: 120_000 });
    const before = await serviceNames();
    const leftovers: string[] = [];
    // leaks show in any run; SWARM_K8S_COMPOSE_RUNS=10 tries harder than CI's time allows
    const runs = Number(process.env.SWARM_K8S_COMPOSE_RUNS ?? 4);
    for (let run = 1; run <= runs; run++) {
      await compose('up', '-d');
      await compose('up', '-d', '--scale', 'web=3', '--scale', 'worker=2');
      expect((await compose('ps', '-q')).stdout.split('\n').filter(Boolean)).toHaveLength(5);
      await compose('down');
      const pods = await core.listNamespacedPod({ namespace: 'default', labelSelector: 'com.docker.compose.project=store' });
      const maps = await core.listNamespacedConfigMap({ namespace: 'default', labelSelector: 'swarm.io/network=true' });
      const services = (await serviceNames()).filter((name) => !before.includes(name));
      leftovers.push(
        ...pods.items.map((pod) => `run ${run}: pod ${pod.metadata?.name}`),
        ...maps.items.map((map) => `run ${run}: configmap ${map.metadata?.name}`),
        ...services.map((name) => `run ${run}: service ${name}`),
      );
    }
    expect(leftovers).toEqual([]);
  });

  it('a restarted manager deletes the alias Services it made that no container answers to', async () => {
    expect((await d('network', 'create', 'kept')).code).toBe(0);
    try {
      expect(
        (await d('run', '-d', '--name', 'keeper', '--network', 'kept', '--network-alias', 'still-used', 'busybox:local', 'sleep', '600'))
          .code,
      ).toBe(0);
      // what a manager stopped between a container's removal and its Service's leaves behind
      const orphan = (name: string): k8s.V1Service => ({
        metadata: { name, labels: { 'swarm.io/alias-service': 'true' } },
        spec: { clusterIP: 'None', selector: { [`alias.swarm.io/${name}`]: 'true' }, publishNotReadyAddresses: true },
      });
      await core.createNamespacedService({ namespace: 'default', body: orphan('left-behind') });
      // a user's Service is never swarm's to delete
      await core.createNamespacedService({
        namespace: 'default',
        body: { metadata: { name: 'users-own' }, spec: { clusterIP: 'None', selector: { app: 'x' } } },
      });
      // older than the grace a new primary gives a create its predecessor may still be making
      await new Promise((resolve) => setTimeout(resolve, 5_500));
      await manager.stop();
      manager = await startK8sManager();
      await waitUntil(async () => !(await aliasServices()).includes('left-behind'), 'the orphaned alias Service deleted', 15_000);
      expect(await aliasServices()).toEqual(['keeper', 'still-used']);
      expect(await serviceNames()).toContain('users-own');
    } finally {
      await core.deleteNamespacedService({ name: 'users-own', namespace: 'default' }).catch(() => undefined);
      await d('rm', '-f', 'keeper');
      await d('network', 'rm', 'kept');
    }
  });
});
