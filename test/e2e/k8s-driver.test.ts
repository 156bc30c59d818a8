import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestbed, type Testbed } from '../harness/engines.js';
import { startManager, type Manager } from '../harness/manager.js';
import { startKubernetesDouble, type KubernetesDouble } from '../k8s-double/index.js';
import { docker, row, systemStatus, waitUntil } from '../mesos-double/swarm-cli.js';

// The real docker CLI and docker-compose → swarm manage -c kubernetes → the Kubernetes API server
// double → pods as real containers on engines 230-231. Ports 26180-26189 belong to this file.
const PORT = 26180;
const FORBIDDEN_PORT = 26181;
const PVC_PORT = 26182;
const REPLICA_PORTS = [26183, 26184] as const;
const exec = promisify(execFile);
const work = mkdtempSync(join(tmpdir(), 'swarm-k8s-driver-'));
let testbed: Testbed;
let double: KubernetesDouble;
let manager: Manager;
let pods: k8s.CoreV1Api;

const d = (...args: string[]) => docker(PORT, ...args);

/** `docker events` of one container between `since` (Unix seconds) and now, one line per event. */
async function eventsOf(container: string, since: number, format: string): Promise<string[]> {
  const until = Math.floor(Date.now() / 1000) + 1;
  const events = await d(
    'events',
    '--since',
    String(since),
    '--until',
    String(until),
    '--filter',
    `container=${container}`,
    '--format',
    format,
  );
  return events.stdout.split('\n');
}

/** The Role row of /info, read over plain HTTP (quicker than the docker CLI, for timing a takeover). */
async function infoRole(port: number): Promise<string | undefined> {
  try {
    const answer = await fetch(`http://127.0.0.1:${port}/info`, { signal: AbortSignal.timeout(1000) });
    const info = (await answer.json()) as { SystemStatus?: Array<[string, string]> | null };
    return info.SystemStatus?.find(([key]) => key === 'Role')?.[1];
  } catch {
    return undefined;
  }
}

/** `swarm manage -c kubernetes` with `k8s://` as the discovery argument, or none at all (`discovery: ''`). */
function startK8sManager(port: number, kubeconfig: string, expectNodes = 2, discovery = 'k8s://'): Promise<Manager> {
  return startManager({
    discovery,
    port,
    expectNodes,
    args: ['-c', 'kubernetes', '--cluster-opt', `kubernetes.kubeconfig=${kubeconfig}`, '--cluster-opt', 'kubernetes.namespace=default'],
  });
}

async function pod(name: string): Promise<k8s.V1Pod | undefined> {
  return pods.readNamespacedPod({ name, namespace: 'default' }).catch(() => undefined);
}

beforeAll(async () => {
  testbed = await startTestbed({ first: 230, count: 2 });
  double = await startKubernetesDouble({
    nodes: testbed.engines.map((engine) => ({
      engine: { host: engine.host, port: engine.port },
      labels: { 'topology.kubernetes.io/zone': `zone${engine.index}` },
    })),
    kubelet: { backoffInitialSeconds: 1, backoffMaxSeconds: 4 },
  });
  const config = new k8s.KubeConfig();
  config.loadFromFile(double.kubeconfig);
  pods = config.makeApiClient(k8s.CoreV1Api);
  manager = await startK8sManager(PORT, double.kubeconfig);
});

afterAll(async () => {
  await manager?.stop();
  await double?.stop();
  await testbed?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe('swarm manage -c kubernetes', () => {
  it('shows every Kubernetes node with its labels, allocatable resources and health, and the API server', async () => {
    const rows = await systemStatus(PORT);
    expect(row(rows, 'Nodes')).toBe('2');
    const labels = rows.filter(([key]) => key.trim() === '└ Labels').map(([, value]) => value);
    expect(labels.join(' ')).toContain('topology.kubernetes.io/zone=zone230');
    expect(labels.join(' ')).toContain('kubernetes.io/arch=amd64');
    expect(rows.filter(([key, value]) => key.trim() === '└ Status' && value === 'Healthy')).toHaveLength(2);
    expect(row(rows, 'Kubernetes Status')).toBe('Healthy');
    expect(row(rows, 'Kubernetes API')).toBe(double.url);
    const cpus = rows.find(([key]) => key.trim() === '└ Reserved CPUs')?.[1];
    expect(cpus).toMatch(/^0 \/ \d+/);
  });

  it('runs one container as one pod, placed by swarm, and shows exactly one container for it', async () => {
    const run = await d(
      'run',
      '-d',
      '--name',
      'solo',
      '-e',
      'constraint:topology.kubernetes.io/zone==zone231',
      '-l',
      'team=blue',
      'busybox:local',
      'sleep',
      '600',
    );
    expect(run.code, run.stderr).toBe(0);
    const ps = await d('ps', '--filter', 'name=solo', '--format', '{{.ID}} {{.Names}} {{.Status}}');
    expect(ps.stdout.split('\n')).toHaveLength(1);
    expect(ps.stdout).toMatch(new RegExp(`^${run.stdout.slice(0, 12)} node231/solo Up`));
    const inspect = JSON.parse((await d('inspect', 'solo')).stdout)[0];
    expect(inspect.Id).toBe(run.stdout);
    expect(inspect.State.Running).toBe(true);
    expect(inspect.Node.Name).toBe('node231');
    expect(inspect.Config.Labels.team).toBe('blue');
    const object = await pod('solo');
    expect(object?.spec?.nodeName).toBe('node231');
    expect(object?.metadata?.labels?.['swarm.io/managed']).toBe('true');
    expect(object?.metadata?.labels?.['team']).toBe('blue');
    expect(object?.spec?.containers).toHaveLength(1);
    // the engine runs the pod's sandbox and container, docker sees one container
    const onEngine = await exec('docker', [
      '-H',
      `tcp://${testbed.engines[1]!.host}:${testbed.engines[1]!.port}`,
      'ps',
      '--format',
      '{{.Names}}',
    ]);
    expect(onEngine.stdout.split('\n').filter((name) => name.includes('_solo_')).length).toBe(2);
    expect((await d('rm', '-f', 'solo')).code).toBe(0);
    await waitUntil(async () => (await pod('solo')) === undefined, 'the pod of solo gone');
    expect((await d('ps', '-a', '--filter', 'name=solo', '-q')).stdout).toBe('');
  });

  it('runs attached: output, exit code, logs, wait', async () => {
    const attached = await d('run', '--name', 'say', 'busybox:local', 'sh', '-c', 'echo hello-k8s; echo to-stderr >&2; exit 3');
    expect(attached.code).toBe(3);
    // the kubelet keeps one log stream per container: stderr arrives on stdout too
    expect(attached.stdout.split('\n').sort()).toEqual(['hello-k8s', 'to-stderr']);
    const ps = await d('ps', '-a', '--filter', 'name=say', '--format', '{{.Status}}');
    expect(ps.stdout).toMatch(/^Exited \(3\) /);
    expect((await d('logs', 'say')).stdout.split('\n').sort()).toEqual(['hello-k8s', 'to-stderr']);
    expect((await d('logs', '--tail', '1', 'say')).stdout.split('\n')).toHaveLength(1);
    expect((await d('wait', 'say')).stdout).toBe('3');
    const removed = await d('run', '--rm', '--name', 'gone', 'busybox:local', 'echo', 'bye');
    expect(removed.stdout).toBe('bye');
    await waitUntil(async () => (await d('ps', '-a', '--filter', 'name=gone', '-q')).stdout === '', '--rm removed the container');
  });

  it('execs with exit codes and stdin, through the API server', async () => {
    expect((await d('run', '-d', '--name', 'box', 'busybox:local', 'sleep', '600')).code).toBe(0);
    const failing = await d('exec', 'box', 'sh', '-c', 'echo out; exit 7');
    expect(failing).toMatchObject({ code: 7, stdout: 'out' });
    const piped = await exec('sh', ['-c', `echo from-stdin | docker -H tcp://127.0.0.1:${PORT} exec -i box cat`]);
    expect(piped.stdout.trim()).toBe('from-stdin');
    const tty = await exec('script', [
      '-eqc',
      `docker -H tcp://127.0.0.1:${PORT} exec -it box sh -c 'echo in-tty; exit 4'`,
      '/dev/null',
    ]).catch((error: { code: number; stdout: string }) => error);
    expect((tty as { code?: number }).code).toBe(4);
    expect(tty.stdout).toContain('in-tty');
  });

  it('serves docker stats from metrics.k8s.io and docker top through exec, and says when the cluster has no metrics', async () => {
    expect((await d('run', '-d', '--name', 'spinner', 'busybox:local', 'sh', '-c', 'while :; do :; done')).code).toBe(0);
    await waitUntil(
      async () => /spinner\s+\d+\.\d+%/.test((await d('stats', '--no-stream', 'spinner')).stdout),
      'a CPU percentage',
      30_000,
    );
    const top = await d('top', 'spinner');
    expect(top.stdout).toMatch(/^PID\s+USER\s+COMMAND\n1\s+root\s+sh -c while :; do :; done/);
    double.setMetrics('absent');
    try {
      const stats = await d('stats', '--no-stream', 'spinner');
      expect(stats.stderr).toContain(
        'docker stats is not supported with the kubernetes driver: the cluster serves no metrics.k8s.io API (install metrics-server)',
      );
    } finally {
      double.setMetrics('served');
    }
    await d('rm', '-f', 'spinner');
  });

  it('stops (keeping the exit code), starts again with the same ID, restarts, kills and removes', async () => {
    const id = (await d('run', '-d', '--name', 'cycle', 'busybox:local', 'sleep', '600')).stdout;
    expect((await d('stop', '-t', '1', 'cycle')).code).toBe(0);
    expect((await d('ps', '-a', '--filter', 'name=cycle', '--format', '{{.Status}}')).stdout).toMatch(/^Exited \(137\)/);
    expect((await pod('cycle'))?.metadata?.deletionTimestamp).toBeDefined();
    expect((await d('start', 'cycle')).code).toBe(0);
    expect((await d('ps', '--filter', 'name=cycle', '--format', '{{.ID}} {{.Status}}')).stdout).toMatch(
      new RegExp(`^${id.slice(0, 12)} Up`),
    );
    expect((await d('restart', '-t', '1', 'cycle')).code).toBe(0);
    expect((await d('inspect', '-f', '{{.State.Running}} {{.Id}}', 'cycle')).stdout).toBe(`true ${id}`);
    const refused = await d('rm', 'cycle');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`You cannot remove a running container ${id}`);
    expect((await d('kill', 'cycle')).code).toBe(0);
    expect((await d('inspect', '-f', '{{.State.Status}} {{.State.ExitCode}}', 'cycle')).stdout).toBe('exited 137');
    expect((await d('rm', 'cycle')).stdout).toBe('cycle');
    expect(await pod('cycle')).toBeUndefined();
  });

  it('streams events from the pod watch, with the node', async () => {
    const since = Math.floor(Date.now() / 1000) - 1;
    await d('run', '--name', 'evented', 'busybox:local', 'sh', '-c', 'exit 2');
    await d('rm', 'evented');
    const events = await eventsOf(
      'evented',
      since,
      '{{.Action}} {{index .Actor.Attributes "exitCode"}} {{index .Actor.Attributes "node.name"}}',
    );
    const lines = events.map((line) => line.replace(/<no value>/g, '').trim());
    expect(lines.map((line) => line.split(' ')[0])).toEqual(['create', 'start', 'die', 'destroy']);
    expect(lines[2]).toMatch(/^die 2 node23[01]$/);
  });

  it('maps -p, -m, --cpus, --restart, -w, -u to the pod spec and refuses options with no Kubernetes meaning', async () => {
    const run = await d(
      'run',
      '-d',
      '--name',
      'mapped',
      '-p',
      '18080:80',
      '-m',
      '64m',
      '--cpus',
      '0.5',
      '--restart',
      'always',
      '-w',
      '/www',
      '-u',
      '0:0',
      'busybox:local',
      'httpd',
      '-f',
      '-p',
      '80',
    );
    expect(run.code, run.stderr).toBe(0);
    const spec = (await pod('mapped'))!.spec!;
    expect(spec.restartPolicy).toBe('Always');
    expect(spec.containers[0]!.resources).toEqual({
      requests: { memory: String(64 * 1024 * 1024), cpu: '500m' },
      limits: { memory: String(64 * 1024 * 1024), cpu: '500m' },
    });
    expect(spec.containers[0]!.ports).toEqual([{ containerPort: 80, hostPort: 18080, protocol: 'TCP' }]);
    expect(spec.containers[0]!.workingDir).toBe('/www');
    const node = (await d('inspect', '-f', '{{.Node.IP}}', 'mapped')).stdout;
    await waitUntil(
      async () =>
        (
          await fetch(`http://${node}:18080/index.html`)
            .then((r) => r.text())
            .catch(() => '')
        ).includes('hello from busybox'),
      'the host port serves',
    );
    expect((await d('port', 'mapped')).stdout).toBe(`80/tcp -> ${node}:18080`);
    const device = await d('run', '-d', '--device', '/dev/null:/dev/x', 'busybox:local', 'true');
    expect(device.code).toBe(125);
    expect(device.stderr).toContain('--device is not supported with the kubernetes driver');
    const user = await d('run', '-d', '-u', 'nobody', 'busybox:local', 'true');
    expect(user.stderr).toContain('invalid --user "nobody": Kubernetes takes numeric IDs');
    expect((await d('rm', '-f', 'mapped')).code).toBe(0);
  });

  it('keeps new containers off a cordoned node and names why when nothing fits', async () => {
    double.cordon('node230', true);
    try {
      await waitUntil(async () => row(await systemStatus(PORT), '└ Error')?.includes('cordoned') ?? false, 'the cordon in docker info');
      for (let i = 0; i < 3; i++) {
        const run = await d('run', '-d', '--name', `avoid${i}`, 'busybox:local', 'sleep', '60');
        expect(run.code, run.stderr).toBe(0);
      }
      expect((await d('ps', '--filter', 'name=avoid', '--format', '{{.Names}}')).stdout.split('\n').sort()).toEqual([
        'node231/avoid0',
        'node231/avoid1',
        'node231/avoid2',
      ]);
      const pinned = await d('run', '-d', '-e', 'constraint:node==node230', 'busybox:local', 'true');
      expect(pinned.code).toBe(125);
      expect(pinned.stderr).toContain('Unable to find a node that satisfies the following conditions');
    } finally {
      double.cordon('node230', false);
    }
    await d('rm', '-f', 'avoid0', 'avoid1', 'avoid2');
  });

  it('marks a NotReady node unhealthy at once and reschedules its on-node-failure containers', async () => {
    const moving = (
      await d(
        'run',
        '-d',
        '--name',
        'mover',
        '-e',
        'constraint:node==~node231',
        '-e',
        'reschedule:on-node-failure',
        'busybox:local',
        'sleep',
        '600',
      )
    ).stdout;
    const staying = (await d('run', '-d', '--name', 'stayer', '-e', 'constraint:node==node231', 'busybox:local', 'sleep', '600')).stdout;
    expect((await d('inspect', '-f', '{{.Node.Name}}', 'mover')).stdout).toBe('node231');
    double.setNodeReady('node231', false);
    try {
      await waitUntil(
        async () => (await systemStatus(PORT)).some(([key, value]) => key.trim() === '└ Status' && value === 'Unhealthy'),
        'node231 Unhealthy',
        10_000,
      );
      await waitUntil(
        async () => (await d('ps', '--filter', 'name=mover', '--format', '{{.Names}} {{.Status}}')).stdout.startsWith('node230/mover Up'),
        'mover running on node230',
        60_000,
      );
      expect((await d('inspect', '-f', '{{.Id}}', 'mover')).stdout).toBe(moving);
      // without the policy it stays (and, as with Swarm classic, its unhealthy node refuses inspect)
      expect((await d('ps', '--no-trunc', '--filter', 'name=stayer', '--format', '{{.Names}} {{.ID}}')).stdout).toBe(
        `node231/stayer ${staying}`,
      );
    } finally {
      double.setNodeReady('node231', undefined);
    }
    await waitUntil(
      async () => (await systemStatus(PORT)).filter(([key, value]) => key.trim() === '└ Status' && value === 'Healthy').length === 2,
      'node231 Healthy again',
    );
    await d('rm', '-f', 'mover', 'stayer');
  });

  it('runs a compose project whose services reach each other by name, scales it and takes it down', async () => {
    const dir = join(work, 'shop');
    rmSync(dir, { recursive: true, force: true });
    await exec('mkdir', ['-p', dir]);
    writeFileSync(
      join(dir, 'docker-compose.yml'),
      [
        "version: '2'",
        'services:',
        '  web:',
        '    image: busybox:local',
        '    command: httpd -f -p 80 -h /www',
        '  client:',
        '    image: busybox:local',
        "    command: sh -c 'until wget -q -O - http://web/index.html; do sleep 1; done; sleep 600'",
        '    depends_on: [web]',
        '',
      ].join('\n'),
    );
    const compose = (...args: string[]) =>
      exec('docker-compose', args, { cwd: dir, env: { ...process.env, DOCKER_HOST: `tcp://127.0.0.1:${PORT}` }, timeout: 120_000 });
    await compose('up', '-d');
    expect((await compose('ps')).stdout).toMatch(/shop_web_1 .* Up/);
    await waitUntil(
      async () => (await compose('logs', 'client')).stdout.includes('hello from busybox:local'),
      'client reached web by name',
      30_000,
    );
    await compose('up', '-d', '--scale', 'web=2');
    expect((await compose('ps')).stdout).toMatch(/shop_web_2 .* Up/);
    await compose('down');
    expect((await d('ps', '-a', '--filter', 'label=com.docker.compose.project=shop', '-q')).stdout).toBe('');
    expect((await d('network', 'ls', '--filter', 'name=shop_default', '-q')).stdout).toBe('');
  });

  it("removes only its own alias Services: a user's Service of the same name survives the container", async () => {
    await pods.createNamespacedService({
      namespace: 'default',
      body: { metadata: { name: 'ledger', labels: { team: 'payments' } }, spec: { ports: [{ port: 5432 }], selector: { app: 'ledger' } } },
    });
    expect((await d('network', 'create', 'books')).code).toBe(0);
    try {
      for (const alias of ['ledger', 'journal']) {
        const run = await d(
          'run',
          '-d',
          '--name',
          `with-${alias}`,
          '--network',
          'books',
          '--network-alias',
          alias,
          'busybox:local',
          'sleep',
          '600',
        );
        expect(run.code, run.stderr).toBe(0);
      }
      const journal = await pods.readNamespacedService({ name: 'journal', namespace: 'default' });
      expect(journal.metadata?.labels?.['swarm.io/alias-service']).toBe('true');
      expect((await d('rm', '-f', 'with-ledger', 'with-journal')).code).toBe(0);
      await waitUntil(
        async () => (await pods.listNamespacedService({ namespace: 'default' })).items.every((item) => item.metadata?.name !== 'journal'),
        'the alias Service swarm made is gone',
      );
      const ledger = await pods.readNamespacedService({ name: 'ledger', namespace: 'default' });
      expect(ledger.metadata?.labels).toEqual({ team: 'payments' });
    } finally {
      await pods.deleteNamespacedService({ name: 'ledger', namespace: 'default' }).catch(() => undefined);
      await d('network', 'rm', 'books');
    }
  });

  it('resumes its watches after a cut or a 410 without missing or repeating an event', async () => {
    const since = Math.floor(Date.now() / 1000) - 1;
    expect((await d('run', '-d', '--name', 'watched', 'busybox:local', 'sh', '-c', 'sleep 3; exit 9')).code).toBe(0);
    double.dropWatches();
    double.compact();
    await waitUntil(
      async () => (await d('ps', '-a', '--filter', 'name=watched', '--format', '{{.Status}}')).stdout.startsWith('Exited (9)'),
      'the exit seen after the cut',
      30_000,
    );
    double.dropWatches();
    expect((await d('rm', 'watched')).code).toBe(0);
    expect(await eventsOf('watched', since, '{{.Action}}')).toEqual(['create', 'start', 'die', 'destroy']);
  });

  it('shows an API server that went away in docker info, and carries on when it is back', async () => {
    await double.disconnect();
    try {
      await waitUntil(
        async () => (row(await systemStatus(PORT), 'Kubernetes Status') ?? '').startsWith('Unavailable'),
        'Unavailable in docker info',
        30_000,
      );
      expect(row(await systemStatus(PORT), 'Kubernetes Status')).toMatch(/is the API server up/);
    } finally {
      await double.reconnect();
    }
    await waitUntil(async () => row(await systemStatus(PORT), 'Kubernetes Status') === 'Healthy', 'Healthy again', 30_000);
    const run = await d('run', '--rm', 'busybox:local', 'echo', 'back');
    expect(run.stdout).toBe('back');
  });

  it('keeps a named volume in a PersistentVolumeClaim with kubernetes.volumes=pvc', async () => {
    const claims = await startManager({
      discovery: '',
      port: PVC_PORT,
      expectNodes: 2,
      args: ['-c', 'kubernetes', '--cluster-opt', `kubernetes.kubeconfig=${double.kubeconfig}`, '--cluster-opt', 'kubernetes.volumes=pvc'],
    });
    try {
      const writer = await docker(
        PVC_PORT,
        'run',
        '--name',
        'writer',
        '-v',
        'ledger:/data',
        'busybox:local',
        'sh',
        '-c',
        'echo kept > /data/f',
      );
      expect(writer.code, writer.stderr).toBe(0);
      await docker(PVC_PORT, 'rm', 'writer');
      const claim = await pods.readNamespacedPersistentVolumeClaim({ name: 'swarm-ledger', namespace: 'default' });
      expect(claim.metadata?.annotations?.['swarm.io/container-name']).toBe('ledger');
      // no --rm: the test's other manager watches the same namespace and would remove it too
      const reader = await docker(PVC_PORT, 'run', '--name', 'reader', '-v', 'ledger:/data', 'busybox:local', 'cat', '/data/f');
      expect(reader.stdout).toBe('kept');
      await docker(PVC_PORT, 'rm', 'reader');
    } finally {
      await claims.stop();
    }
  });

  it('elects one primary among replicated managers through a Lease; the replica forwards and takes over from a killed primary', async () => {
    const replicated = (port: number, ttl = '3s') =>
      startManager({
        discovery: 'k8s://',
        port,
        expectNodes: 2,
        args: [
          '-c',
          'kubernetes',
          '--cluster-opt',
          `kubernetes.kubeconfig=${double.kubeconfig}`,
          '--replication',
          '--advertise',
          `127.0.0.1:${port}`,
          '--replication-ttl',
          ttl,
        ],
      });
    const role = async (port: number) => row(await systemStatus(port), 'Role');
    const first = await replicated(REPLICA_PORTS[0]);
    let second: Manager | undefined;
    let third: Manager | undefined;
    try {
      await waitUntil(async () => (await role(REPLICA_PORTS[0])) === 'primary', 'the first manager primary', 15_000);
      second = await replicated(REPLICA_PORTS[1]);
      await waitUntil(async () => (await role(REPLICA_PORTS[1])) === 'replica', 'the second manager a replica', 15_000);
      const coordination = (() => {
        const config = new k8s.KubeConfig();
        config.loadFromFile(double.kubeconfig);
        return config.makeApiClient(k8s.CoordinationV1Api);
      })();
      const lease = await coordination.readNamespacedLease({ name: 'swarm-docker-swarm-leader', namespace: 'default' });
      expect(lease.spec?.holderIdentity).toBe(`127.0.0.1:${REPLICA_PORTS[0]}`);
      // the API server parses MicroTime with exactly six fractional digits; the double refuses anything else
      expect(String(lease.spec?.renewTime)).toMatch(/T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
      // no --rm: the test's first manager watches the same namespace and would remove it too
      const viaReplica = await docker(REPLICA_PORTS[1], 'run', '--name', 'forwarded', 'busybox:local', 'echo', 'via-replica');
      expect(viaReplica.stdout).toBe('via-replica');
      for (const name of ['kept-1', 'kept-2'])
        expect((await docker(REPLICA_PORTS[1], 'run', '-d', '--name', name, 'busybox:local', 'sleep', '600')).code).toBe(0);
      const listed = async (port: number) =>
        (await docker(port, 'ps', '-a', '--format', '{{.Names}}')).stdout
          .split('\n')
          .filter(Boolean)
          .map((name) => name.split('/').pop())
          .sort();
      const before = await listed(REPLICA_PORTS[0]);
      expect(before).toEqual(expect.arrayContaining(['forwarded', 'kept-1', 'kept-2']));
      // kill -9: no resignation, the replica waits the TTL out
      const killed = Date.now();
      process.kill(first.pid, 'SIGKILL');
      await first.stop();
      await waitUntil(async () => (await role(REPLICA_PORTS[1])) === 'primary', 'the replica takes over', 3_000 + 5_000);
      expect(Date.now() - killed).toBeLessThan(3_000 + 5_000);
      expect(await listed(REPLICA_PORTS[1])).toEqual(before);
      expect((await docker(REPLICA_PORTS[1], 'rm', '-f', 'forwarded', 'kept-1', 'kept-2')).code).toBe(0);
      // SIGTERM: the primary hands the Lease back and the replica, watching it, takes it at once. Its
      // TTL of 30 s makes it poll every 10 s, so only the watch explains a takeover within seconds.
      third = await replicated(REPLICA_PORTS[0], '30s');
      await waitUntil(async () => (await role(REPLICA_PORTS[0])) === 'replica', 'the restarted manager a replica', 15_000);
      const signalled = Date.now();
      process.kill(second.pid, 'SIGTERM');
      let tookOver: number | undefined;
      while (Date.now() - signalled < 12_000 && tookOver === undefined) {
        if ((await infoRole(REPLICA_PORTS[0])) === 'primary') tookOver = Date.now() - signalled;
        else await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(tookOver, 'the replica primary after the handover').toBeDefined();
      // well under a second on a quiet machine (test/bench/results/failover.md); CI's load gets a margin
      expect(tookOver!).toBeLessThan(3_000);
    } finally {
      await first.stop();
      await second?.stop();
      await third?.stop();
    }
  });

  it('finds every container again after a manager restart', async () => {
    const id = (await d('run', '-d', '--name', 'durable', 'busybox:local', 'sleep', '600')).stdout;
    await d('run', '--name', 'finished', 'busybox:local', 'sh', '-c', 'exit 5');
    await manager.stop();
    manager = await startK8sManager(PORT, double.kubeconfig);
    expect((await d('ps', '-a', '--filter', 'name=durable', '--format', '{{.ID}} {{.Status}}')).stdout).toMatch(
      new RegExp(`^${id.slice(0, 12)} Up`),
    );
    expect((await d('inspect', '-f', '{{.State.ExitCode}}', 'finished')).stdout).toBe('5');
    await d('rm', '-f', 'durable', 'finished');
  });

  it('says what to do when RBAC forbids the manager to list nodes', async () => {
    const kubeconfig = await double.kubeconfigFor({ name: 'limited', auth: 'token' });
    const lift = double.deny({ user: 'limited', resources: ['nodes'], verbs: ['list', 'watch'] });
    let limited: Manager | undefined;
    try {
      limited = await startK8sManager(FORBIDDEN_PORT, kubeconfig, 0, '');
      await waitUntil(
        async () => (row(await systemStatus(FORBIDDEN_PORT), 'Kubernetes Status') ?? '').includes('RBAC'),
        'RBAC advice in docker info',
      );
      expect(row(await systemStatus(FORBIDDEN_PORT), 'Kubernetes Status')).toMatch(
        /^Unavailable: .*forbidden.*\(RBAC: the user needs list, watch on nodes \(a ClusterRole\)/,
      );
      expect(limited.output()).toContain('forbidden');
    } finally {
      lift();
      await limited?.stop();
    }
  });
});
