import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as https from 'node:https';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestbed, type Testbed } from '../harness/engines.js';
import { startKubernetesDouble, type KubernetesDouble } from '../k8s-double/index.js';
import { kubectl, raw } from '../k8s-double/testing.js';
import { dockerCli, waitUntil, type CliResult } from '../mesos-double/swarm-cli.js';

// core/deploy/kubernetes/swarm-manager.yaml applied to the Kubernetes API server double as an
// admin (all but the Deployment: the double serves no apps/v1), then the Deployment's two
// replicas run "in-cluster" from its pod template: the container's args and env with POD_IP
// and POD_NAMESPACE resolved, KUBERNETES_SERVICE_HOST/PORT pointing at the double, and the
// service account's token, ca.crt and namespace files and the TLS Secret's files bind-mounted
// where a pod has them, in a mount namespace of their own. The double authorizes the service
// account by RBAC alone, so everything the managers do is done with the Role's permissions.
// Engines 251-252; ports 26290-26299 belong to this file.
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MANIFESTS = join(ROOT, 'core/deploy/kubernetes/swarm-manager.yaml');
const BIN = join(ROOT, 'core/dist/cli/bin.js');
const NS = 'swarm';
const ACCOUNT = 'swarm-manager';
/** The two pods' IPs (loopback addresses) and ports: on one machine the pods cannot share 2376. */
const PODS = [
  { ip: '127.0.1.1', port: 26290 },
  { ip: '127.0.1.2', port: 26291 },
] as const;
const run = promisify(execFile);
const work = mkdtempSync(join(tmpdir(), 'swarm-deploy-k8s-'));
const tls = join(work, 'tls');
let testbed: Testbed;
let double: KubernetesDouble;
let rbac: k8s.RbacAuthorizationV1Api;
const managers: InCluster[] = [];

interface Rule {
  apiGroups?: string[];
  resources?: string[];
  verbs: string[];
}
interface Manifest {
  kind: string;
  metadata: { name: string; namespace?: string };
  rules?: Rule[];
  spec?: Record<string, unknown>;
}
interface Container {
  command: string[];
  args: string[];
  env: Array<{ name: string; value?: string; valueFrom?: { fieldRef?: { fieldPath: string } } }>;
  ports: Array<{ containerPort: number }>;
  volumeMounts: Array<{ name: string; mountPath: string }>;
  image: string;
  imagePullPolicy: string;
  readinessProbe: { exec: { command: string[] } };
  livenessProbe: { exec: { command: string[] } };
  resources: { requests: Record<string, string> };
}

const manifests = (): Manifest[] => k8s.loadAllYaml(readFileSync(MANIFESTS, 'utf8')) as Manifest[];
const byKind = (kind: string): Manifest => manifests().find((m) => m.kind === kind)!;
const template = () =>
  (byKind('Deployment').spec as { replicas: number; template: { spec: { serviceAccountName: string; containers: Container[] } } }).template;

/** The docker CLI over TLS with a client certificate signed by the Secret's CA. */
function docker(pod: (typeof PODS)[number], ...args: string[]): Promise<CliResult> {
  const flags = ['--tlsverify', '--tlscacert', join(tls, 'ca.pem'), '--tlscert', join(tls, 'client-cert.pem')];
  return dockerCli([...flags, '--tlskey', join(tls, 'client-key.pem'), '-H', `tcp://${pod.ip}:${pod.port}`, ...args]);
}

async function systemStatus(pod: (typeof PODS)[number]): Promise<Array<[string, string]>> {
  const info = await docker(pod, 'info', '--format', '{{json .SystemStatus}}');
  try {
    return (JSON.parse(info.stdout) as Array<[string, string]> | null) ?? [];
  } catch {
    return [];
  }
}
const row = (rows: Array<[string, string]>, key: string) => rows.find(([name]) => name.trim() === key)?.[1];
const healthy = (rows: Array<[string, string]>) => rows.filter(([key, value]) => key.trim() === '└ Status' && value === 'Healthy').length;

/** openssl: a CA (the Secret's ca.pem), the managers' certificate and key, and a client's. */
async function makeCertificates(): Promise<void> {
  mkdirSync(tls, { recursive: true });
  const openssl = (...args: string[]) => run('openssl', args, { cwd: tls });
  await openssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    'ca-key.pem',
    '-out',
    'ca.pem',
    '-days',
    '2',
    '-subj',
    '/CN=swarm-ca',
  );
  // the managers reach each other by their pods' DNS names (the wildcard); the docker CLI here dials the pods' IPs
  const sans = [
    `DNS:*.${NS}.pod.cluster.local`,
    `DNS:${ACCOUNT}.${NS}.svc`,
    `DNS:${ACCOUNT}.${NS}.svc.cluster.local`,
    ...PODS.map((pod) => `IP:${pod.ip}`),
  ];
  // the managers' certificate also authenticates a replica to the primary it forwards to
  writeFileSync(join(tls, 'server.ext'), `subjectAltName=${sans.join(',')}\nextendedKeyUsage=serverAuth,clientAuth\n`);
  writeFileSync(join(tls, 'client.ext'), 'extendedKeyUsage=clientAuth\n');
  for (const [name, subject, ext] of [
    ['', '/CN=swarm-manager', 'server.ext'],
    ['client-', '/CN=operator', 'client.ext'],
  ] as const) {
    await openssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${name}key.pem`, '-out', `${name}req.csr`, '-subj', subject);
    await openssl(
      'x509',
      '-req',
      '-in',
      `${name}req.csr`,
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca-key.pem',
      '-CAcreateserial',
      '-out',
      `${name}cert.pem`,
      '-days',
      '2',
      '-extfile',
      ext,
    );
  }
}

interface InCluster {
  pod: (typeof PODS)[number];
  child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

/** The 403s the double answered the managers' service account. */
const refusals = () => double.authorizer.refusals.filter((refusal) => refusal.user === `system:serviceaccount:${NS}:${ACCOUNT}`);

/** `$(VAR)` in a container's args, as the kubelet expands them from the container's env (`$$` is a `$`). */
const expand = (text: string, env: Record<string, string>) =>
  text.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (all, name: string | undefined) => (name === undefined ? '$' : (env[name] ?? all)));

/** A pod's DNS name, as CoreDNS answers it (`pods insecure`). */
const podName = (ip: string) => `${ip.replace(/\./g, '-')}.${NS}.pod.cluster.local`;

/**
 * One replica of the Deployment as its pod would run it: the pod template's args and env, the
 * service account's files and the Secret's files mounted at their paths in a mount namespace of
 * its own (overlays on /etc and /run take the mount points; nothing on the machine changes).
 */
function startInCluster(pod: (typeof PODS)[number], index: number): InCluster {
  const container = template().spec.containers[0]!;
  const dir = join(work, `pod${index}`);
  const account = join(dir, 'serviceaccount');
  const secret = join(dir, 'tls');
  for (const sub of ['etc-up', 'etc-work', 'run-up', 'run-work', 'serviceaccount', 'tls']) mkdirSync(join(dir, sub), { recursive: true });
  writeFileSync(join(account, 'token'), double.serviceAccountToken(NS, template().spec.serviceAccountName));
  writeFileSync(join(account, 'ca.crt'), double.ca);
  writeFileSync(join(account, 'namespace'), NS);
  // the kubelet writes the Secret's keys as files: read them back from the API, not from disk
  const stored = double.get('secrets', NS, 'swarm-tls');
  for (const [key, value] of Object.entries((stored?.data ?? {}) as Record<string, string>)) {
    writeFileSync(join(secret, key), Buffer.from(value, 'base64'));
  }
  const fields: Record<string, string> = { 'status.podIP': pod.ip, 'metadata.namespace': NS };
  const env: Record<string, string> = {};
  for (const variable of container.env) env[variable.name] = variable.value ?? fields[variable.valueFrom?.fieldRef?.fieldPath ?? ''] ?? '';
  const containerPort = container.ports[0]!.containerPort;
  // one loopback address per pod; the pods' shared port becomes one port each here
  const args = container.args.map((arg) =>
    expand(arg, env)
      .replace(`tcp://0.0.0.0:${containerPort}`, `tcp://${pod.ip}:${pod.port}`)
      .replace(`.pod.cluster.local:${containerPort}`, `.pod.cluster.local:${pod.port}`),
  );
  if (!args.join(' ').includes(`tcp://${pod.ip}:${pod.port}`) || !args.join(' ').includes(`.pod.cluster.local:${pod.port}`))
    throw new Error(`the container's args changed shape: ${args.join(' ')}`);
  // the image has swarm on its PATH
  const bin = join(dir, 'bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, 'swarm'), `#!/bin/sh\nexec '${process.execPath}' '${BIN}' "$@"\n`, { mode: 0o755 });
  // the cluster DNS answers the pods' names; in this mount namespace /etc/hosts stands in for it
  const hosts = PODS.map((other) => `'${other.ip} ${podName(other.ip)}'`).join(' ');
  const mountPath = (name: string) => container.volumeMounts.find((mount) => mount.name === name)!.mountPath;
  const script = [
    'set -e',
    `mount -t overlay overlay -o lowerdir=/etc,upperdir=${dir}/etc-up,workdir=${dir}/etc-work /etc`,
    `printf '%s\\n' ${hosts} >> /etc/hosts`,
    `mount -t overlay overlay -o lowerdir=/run,upperdir=${dir}/run-up,workdir=${dir}/run-work /run`,
    'mkdir -p /var/run/secrets/kubernetes.io/serviceaccount "$TLS_PATH"',
    `mount --bind -o ro ${account} /var/run/secrets/kubernetes.io/serviceaccount`,
    `mount --bind -o ro ${secret} "$TLS_PATH"`,
    'unset TLS_PATH',
    'exec "$@"',
  ].join('\n');
  const server = new URL(double.url);
  const child = spawn('unshare', ['--mount', '--propagation', 'private', 'sh', '-c', script, 'sh', ...container.command, ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    // what a pod's container gets: its env, the kubernetes Service's address, no kubeconfig
    env: {
      PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`,
      HOME: dir,
      TLS_PATH: mountPath('tls'),
      KUBERNETES_SERVICE_HOST: server.hostname,
      KUBERNETES_SERVICE_PORT: server.port,
      ...env,
    },
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return {
    pod,
    child,
    output: () => output,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        const force = setTimeout(() => child.kill('SIGKILL'), 5000);
        child.once('exit', () => {
          clearTimeout(force);
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}

/**
 * Runs one of the Deployment's exec probes in the manager's mount namespace (it reads the TLS
 * files at the pod's path), aimed at this manager's address; '' when it passes, else the answer.
 */
async function runProbe(manager: InCluster, which: 'readinessProbe' | 'livenessProbe'): Promise<string> {
  const container = template().spec.containers[0]!;
  // the kubelet expands $(VAR) in exec probes from the env entries with a value (ExpandContainerCommandOnlyStatic)
  const statics = Object.fromEntries(
    container.env.flatMap((variable) => (variable.value === undefined ? [] : [[variable.name, variable.value]])),
  );
  const [, ...args] = container[which].exec.command.map((arg) =>
    expand(arg, statics).replace("host: '127.0.0.1', port: 2376", `host: '${manager.pod.ip}', port: ${manager.pod.port}`),
  );
  if (!args.join(' ').includes(`port: ${manager.pod.port}`)) return 'the probe script names no address this test can aim';
  const inPod = (script: string[]) => run('nsenter', ['--target', String(manager.child.pid), '--mount', '--', process.execPath, ...script]);
  const passed = await inPod(args).then(
    () => true,
    () => false,
  );
  if (passed) return '';
  // the same request, printing the answer, for the failure message
  const show = args.map((arg) => arg.replace('process.exit(r.statusCode === 200 ? 0 : 1)', 'r.pipe(process.stdout)'));
  return inPod(show).then(
    (out) => `${which} failed on ${manager.pod.ip}: ${out.stdout}`,
    (error: Error) => `${which} failed on ${manager.pod.ip}: ${error.message}`,
  );
}

beforeAll(async () => {
  testbed = await startTestbed({ first: 251, count: 2 });
  double = await startKubernetesDouble({
    nodes: testbed.engines.map((engine) => ({ engine: { host: engine.host, port: engine.port } })),
    kubelet: { backoffInitialSeconds: 1, backoffMaxSeconds: 4 },
  });
  const config = new k8s.KubeConfig();
  config.loadFromFile(double.kubeconfig);
  rbac = config.makeApiClient(k8s.RbacAuthorizationV1Api);
  await makeCertificates();
  // kubectl apply as the cluster's admin: every object but the Deployment (the double serves no apps/v1)
  const documents = readFileSync(MANIFESTS, 'utf8').split(/^---$/m);
  const applied = documents.filter((document) => !/^kind: Deployment$/m.test(document)).join('---');
  const apply = await kubectl(double, ['apply', '-f', '-'], { input: applied });
  expect(apply.code, apply.stderr).toBe(0);
  // kubectl create sends protobuf, which the double reads for reviews only: the same Secret through apply
  const made = await kubectl(double, [
    '-n',
    NS,
    'create',
    'secret',
    'generic',
    'swarm-tls',
    `--from-file=ca.pem=${join(tls, 'ca.pem')}`,
    `--from-file=cert.pem=${join(tls, 'cert.pem')}`,
    `--from-file=key.pem=${join(tls, 'key.pem')}`,
    '--dry-run=client',
    '-o',
    'yaml',
  ]);
  expect(made.code, made.stderr).toBe(0);
  const secret = await kubectl(double, ['apply', '-f', '-'], { input: made.stdout });
  expect(secret.code, secret.stderr).toBe(0);
  for (const [index, pod] of PODS.entries()) {
    managers.push(startInCluster(pod, index));
    // the first one up takes the Lease; the second finds it held
    await waitUntil(async () => healthy(await systemStatus(pod)) === 2, `manager on ${pod.ip} up with 2 nodes`, 60_000).catch(
      (error: Error) => {
        throw new Error(`${error.message}\n${managers[index]!.output()}`);
      },
    );
  }
});

afterAll(async () => {
  await Promise.all(managers.map((manager) => manager.stop()));
  await double?.stop();
  await testbed?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe('core/deploy/kubernetes', () => {
  it('is what the issue asks: 2 replicas on the Lease, probes, requests, the image, TLS from a Secret', () => {
    const deployment = byKind('Deployment').spec as { replicas: number };
    expect(deployment.replicas).toBe(2);
    const container = template().spec.containers[0]!;
    expect(container.image).toBe('swarm:latest');
    expect(container.imagePullPolicy).toBe('IfNotPresent');
    expect(container.command).toEqual(['/bin/sh', '-c']);
    expect(container.args).toHaveLength(1);
    for (const flag of ['exec swarm manage ', ' -c kubernetes ', ' --replication ', ' --advertise ', ' --tlsverify ', ' k8s://'])
      expect(container.args[0]).toContain(flag);
    expect(container.readinessProbe.exec.command).toEqual(['node', '-e', '$(PROBE)', '/_swarm/readyz']);
    expect(container.livenessProbe.exec.command).toEqual(['node', '-e', '$(PROBE)', '/_swarm/healthz']);
    expect(Object.keys(container.resources.requests).sort()).toEqual(['cpu', 'memory']);
    expect(container.volumeMounts.find((mount) => mount.name === 'tls')?.mountPath).toBe('/etc/swarm/tls');
  });

  it("has a pod template the API server takes as a pod (dry run), and a Service selecting it on the container's port", async () => {
    const deployment = byKind('Deployment').spec as { template: { metadata: { labels: Record<string, string> }; spec: unknown } };
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'swarm-manager-template', labels: deployment.template.metadata.labels },
      spec: deployment.template.spec,
    };
    const created = await raw(double, `/api/v1/namespaces/${NS}/pods?dryRun=All&fieldValidation=Strict`, { method: 'POST', body: pod });
    expect(created.status, created.text).toBeLessThan(300);
    expect(double.get('pods', NS, 'swarm-manager-template')).toBeUndefined();
    const service = byKind('Service').spec as { selector: Record<string, string>; ports: Array<{ port: number; targetPort: string }> };
    expect(service.selector).toEqual(deployment.template.metadata.labels);
    expect(service.ports).toEqual([expect.objectContaining({ port: 2376, targetPort: 'docker' })]);
  });

  it('grants exactly the RBAC the driver README lists', () => {
    const granted = new Set<string>();
    for (const kind of ['Role', 'ClusterRole']) {
      for (const rule of byKind(kind).rules ?? []) {
        for (const group of rule.apiGroups ?? [])
          for (const resource of rule.resources ?? []) for (const verb of rule.verbs) granted.add(`${group}|${resource}|${verb}`);
      }
    }
    const readme = readFileSync(join(ROOT, 'plugins/driver-kubernetes/README.md'), 'utf8');
    const paragraph = /^RBAC the manager's user needs[\s\S]*?\n\n/m.exec(readme)![0].replace(/\s+/g, ' ');
    const listed = new Set<string>();
    // "`verbs` on `resource` [and `resource`] [in group]"
    for (const match of paragraph.matchAll(/`([a-z, ]+)` on `([a-z/]+)`(?: and `([a-z/]+)`)?(?: in ([a-z0-9.]+\.[a-z]+))?/g)) {
      const [, verbs, first, second, group = ''] = match;
      if (first === 'persistentvolumeclaims') continue; // only with kubernetes.volumes=pvc: commented out in the Role
      for (const resource of [first!, ...(second ? [second] : [])])
        for (const verb of verbs!.split(', ')) listed.add(`${group}|${resource}|${verb}`);
    }
    expect([...granted].sort()).toEqual([...listed].sort());
    expect(paragraph).toContain('with `kubernetes.volumes=pvc` only, `create` on `persistentvolumeclaims`');
  });
});

describe('the managers in the cluster, with only their Role', () => {
  it('elect one primary on the Lease; both serve docker info over TLS with the nodes', async () => {
    const roles = await Promise.all(PODS.map(async (pod) => row(await systemStatus(pod), 'Role')));
    expect(roles).toEqual(['primary', 'replica']);
    const lease = double.get('leases.coordination.k8s.io', NS, 'swarm-docker-swarm-leader');
    expect((lease?.spec as { holderIdentity?: string }).holderIdentity).toBe(`${podName(PODS[0].ip)}:${PODS[0].port}`);
    for (const pod of PODS) {
      const rows = await systemStatus(pod);
      expect(row(rows, 'Nodes')).toBe('2');
      expect(row(rows, 'Kubernetes Status')).toBe('Healthy');
      expect(row(rows, 'Kubernetes Namespace')).toBe(NS);
      expect(healthy(rows)).toBe(2);
    }
    // without a client certificate signed by the Secret's CA, nothing
    const plain = await run('docker', ['-H', `tcp://${PODS[1].ip}:${PODS[1].port}`, 'info']).catch((error: { code: number }) => error);
    expect((plain as { code: number }).code).not.toBe(0);
  });

  it('run, ps, logs, exec, stats, stop, start, rm, networks with aliases and volumes, through the replica and the primary', async () => {
    const [primary, replica] = PODS;
    const ok = async (pod: (typeof PODS)[number], ...args: string[]) => {
      const result = await docker(pod, ...args);
      expect(result.code, `docker ${args.join(' ')}: ${result.stderr}`).toBe(0);
      return result.stdout;
    };
    const id = await ok(
      replica,
      'run',
      '-d',
      '--name',
      'web',
      '-v',
      'data:/data',
      'busybox:local',
      'sh',
      '-c',
      'echo started > /data/f; echo hello; sleep 600',
    );
    expect(id).toMatch(/^[0-9a-f]{64}$/);
    expect(await ok(primary, 'ps', '--filter', 'name=web', '--format', '{{.Names}} {{.Status}}')).toMatch(/^node25[12]\/web Up/);
    await waitUntil(async () => (await docker(replica, 'logs', 'web')).stdout === 'hello', 'docker logs web');
    expect(await ok(replica, 'exec', 'web', 'cat', '/data/f')).toBe('started');
    // metrics.k8s.io: the Role's last rule
    expect(await ok(primary, 'stats', '--no-stream', '--format', '{{.Name}}', 'web')).toBe('web');
    await ok(primary, 'stop', '-t', '1', 'web');
    expect(await ok(replica, 'ps', '-a', '--filter', 'name=web', '--format', '{{.Status}}')).toMatch(/^Exited/);
    await ok(replica, 'start', 'web');
    expect(await ok(primary, 'inspect', '-f', '{{.State.Running}}', 'web')).toBe('true');
    await ok(replica, 'network', 'create', 'shop');
    await ok(primary, 'network', 'connect', '--alias', 'store', 'shop', 'web');
    await waitUntil(async () => double.get('services', NS, 'store') !== undefined, 'the alias Service store');
    await ok(replica, 'rm', '-f', 'web');
    await waitUntil(async () => double.get('services', NS, 'store') === undefined, 'the alias Service gone with the container');
    await ok(primary, 'network', 'rm', 'shop');
    expect(await ok(replica, 'ps', '-a', '--format', '{{.Names}}')).toBe('');
  });

  it("pass the Deployment's liveness probe, run in each pod's mount namespace; a kubelet's httpGet (no client certificate) would be refused", async () => {
    for (const manager of managers) expect(await runProbe(manager, 'livenessProbe')).toBe('');
    const plain = await new Promise<string>((resolve) => {
      const { ip, port } = PODS[0];
      https
        .get({ host: ip, port, path: '/_swarm/healthz', rejectUnauthorized: false }, (res) => resolve(`HTTP ${res.statusCode}`))
        .on('error', (error) => resolve(error.message));
    });
    expect(plain, 'the API port now answers clients without a certificate: httpGet probes would do').not.toMatch(/^HTTP/);
  });

  it("pass the Deployment's readiness probe on the primary and the replica", async () => {
    for (const manager of managers) expect(await runProbe(manager, 'readinessProbe')).toBe('');
  });

  it('never met a 403: the API server refused the service account nothing, and no manager logged one', () => {
    expect(refusals()).toEqual([]);
    for (const manager of managers) {
      expect(manager.child.exitCode).toBeNull();
      expect(manager.output()).not.toMatch(/\b403\b|forbidden/i);
    }
  });

  it('needs each rule of the Role: without it, what it is for breaks', async () => {
    const [primary] = PODS;
    const refused = async (...args: string[]) => {
      const result = await docker(primary, ...args);
      expect(result.code, `docker ${args.join(' ')} should fail`).not.toBe(0);
      expect(result.stderr).toMatch(/forbidden|403/i);
    };
    await docker(primary, 'run', '-d', '--name', 'probe', 'busybox:local', 'sh', '-c', 'echo hi; sleep 600');
    await waitUntil(async () => (await docker(primary, 'logs', 'probe')).stdout === 'hi', 'docker logs probe');
    await withoutRule('', 'pods/log', () => refused('logs', 'probe'));
    await withoutRule('', 'pods/exec', () => refused('exec', 'probe', 'true'));
    await withoutRule('', 'pods/binding', async () => {
      await docker(primary, 'create', '--name', 'unbound', 'busybox:local', 'true');
      await refused('start', 'unbound');
    });
    await withoutRule('', 'configmaps', () => refused('network', 'create', 'nope'));
    await withoutRule('', 'pods', () => refused('run', '-d', 'busybox:local', 'true'));
    await withoutRule('metrics.k8s.io', 'pods', () => refused('stats', '--no-stream', 'probe'));
    expect(refusals().length).toBeGreaterThan(0);
    // with every rule back, all of it works again
    expect((await docker(primary, 'logs', 'probe')).stdout).toBe('hi');
    expect((await docker(primary, 'rm', '-f', 'probe', 'unbound')).code).toBe(0);
  });

  it('needs the leases rule: without it the primary steps down and nobody takes over; with it back, one is primary again', async () => {
    const roles = async () => Promise.all(PODS.map(async (pod) => row(await systemStatus(pod), 'Role')));
    await withoutRule('coordination.k8s.io', 'leases', async () => {
      // it cannot renew within the TTL (20 s): it steps down before the Lease could expire
      await waitUntil(async () => !(await roles()).includes('primary'), 'no primary without the leases rule', 35_000);
    });
    await waitUntil(async () => (await roles()).includes('primary'), 'a primary again', 50_000);
    expect((await docker(PODS[1], 'ps')).code).toBe(0);
  });
});

/** Runs `check` with the Role's rule for `resource` in `group` removed, then puts the Role back as it was. */
async function withoutRule(group: string, resource: string, check: () => Promise<void>): Promise<void> {
  const rules = ((await rbac.readNamespacedRole({ name: ACCOUNT, namespace: NS })) as k8s.V1Role).rules!;
  const index = rules.findIndex((rule) => rule.apiGroups?.includes(group) && rule.resources?.includes(resource));
  expect(index, `a rule for ${resource} in "${group}"`).toBeGreaterThanOrEqual(0);
  const patch = (body: object[]) =>
    rbac.patchNamespacedRole({ name: ACCOUNT, namespace: NS, body }, k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.JsonPatch));
  await patch([{ op: 'remove', path: `/rules/${index}` }]);
  try {
    await check();
  } finally {
    await patch([{ op: 'replace', path: '/rules', value: rules }]);
  }
}
