import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import * as https from 'node:https';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestbed, type Testbed } from '../harness/engines.js';
import { startKubernetesDouble, type KubernetesDouble } from '../k8s-double/index.js';
import { kubectl, raw } from '../k8s-double/testing.js';
import { dockerCli, waitUntil, type CliResult } from '../mesos-double/swarm-cli.js';
import { restrictedViolations, type PodSpec } from './pod-security-support.js';

// core/deploy/kubernetes as an operator installs it: an overlay of their own on top of
// overlays/example (which changes the base's namespace, image, replicas and TLS Secret), adding
// the Secret from the certificate's files (secretGenerator) and the Prometheus component, applied
// with `kubectl apply -k` to the Kubernetes API server double as an admin (all but the Deployment,
// which the double does not serve, and the ServiceMonitor, whose CRD it has not: a last layer
// deletes those two). The Deployment's replicas then run "in-cluster" from its pod template: the
// container's args and env with POD_IP and POD_NAMESPACE resolved, KUBERNETES_SERVICE_HOST/PORT
// pointing at the double, the service account's token, ca.crt and namespace files and the TLS
// Secret's files bind-mounted where a pod has them, in a mount namespace of their own whose root
// filesystem is read-only but for an empty /tmp (readOnlyRootFilesystem and the emptyDir). The
// double authorizes the service account by RBAC alone, so everything the managers do is done with
// the Role's permissions. Engines 251-252; ports 26290-26299 belong to this file.
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DEPLOY = join(ROOT, 'core/deploy/kubernetes');
const BIN = join(ROOT, 'core/dist/cli/bin.js');
/** What overlays/example sets. */
const NS = 'docker-swarm';
const IMAGE = 'registry.example.com/swarm-kubernetes:0.1.0';
const REPLICAS = 3;
const SECRET = 'swarm-manager-tls';
const ACCOUNT = 'swarm-manager';
/** One pod per replica: IPs (loopback addresses) and ports, since on one machine the pods cannot share 2376. */
const PODS = [
  { ip: '127.0.1.1', port: 26290 },
  { ip: '127.0.1.2', port: 26291 },
  { ip: '127.0.1.3', port: 26292 },
] as const;
const run = promisify(execFile);
const work = mkdtempSync(join(tmpdir(), 'swarm-deploy-k8s-'));
const tls = join(work, 'tls');
/** The operator's overlay, and the layer on top of it that leaves out what the double cannot take. */
const OVERLAY = join(work, 'overlay');
const APPLIED = join(work, 'applied');
let rendered: Manifest[] = [];
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
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  rules?: Rule[];
  subjects?: Array<{ kind: string; name: string; namespace?: string }>;
  data?: Record<string, string>;
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
  resources: { requests: Record<string, string>; limits: Record<string, string> };
  securityContext: Record<string, unknown>;
}
interface Template {
  metadata: { labels: Record<string, string> };
  spec: { serviceAccountName: string; containers: Container[]; volumes: Array<{ name: string; secret?: { secretName: string } }> };
}

const manifests = (): Manifest[] => rendered;
const byKind = (kind: string): Manifest => manifests().find((m) => m.kind === kind)!;
const template = () => (byKind('Deployment').spec as { replicas: number; template: Template }).template;
/** The Secret the Deployment mounts: the generated one, its name with kustomize's hash suffix. */
const secretName = () => template().spec.volumes.find((volume) => volume.name === 'tls')!.secret!.secretName;

/** `kubectl kustomize DIR`: what `kubectl apply -k DIR` would send. */
async function kustomize(dir: string): Promise<Manifest[]> {
  const built = await kubectl(double, ['kustomize', dir]);
  expect(built.code, built.stderr).toBe(0);
  return k8s.loadAllYaml(built.stdout) as Manifest[];
}

/**
 * The operator's overlay: overlays/example plus the TLS Secret made from the certificate's files
 * and the Prometheus component; then a layer deleting the two kinds the double cannot store.
 */
function writeOverlays(): void {
  mkdirSync(OVERLAY);
  for (const file of ['ca.pem', 'cert.pem', 'key.pem']) copyFileSync(join(tls, file), join(OVERLAY, file));
  const from = (dir: string) => relative(OVERLAY, join(DEPLOY, dir));
  writeFileSync(
    join(OVERLAY, 'kustomization.yaml'),
    [
      'apiVersion: kustomize.config.k8s.io/v1beta1',
      'kind: Kustomization',
      `namespace: ${NS}`,
      'resources:',
      `  - ${from('overlays/example')}`,
      'components:',
      `  - ${from('components/prometheus')}`,
      'secretGenerator:',
      `  - name: ${SECRET}`,
      '    files: [ca.pem, cert.pem, key.pem]',
      '',
    ].join('\n'),
  );
  mkdirSync(APPLIED);
  const remove = (apiVersion: string, kind: string) => [
    `  - patch: |-`,
    `      apiVersion: ${apiVersion}`,
    `      kind: ${kind}`,
    `      metadata:`,
    `        name: ${ACCOUNT}`,
    `        namespace: ${NS}`,
    `      $patch: delete`,
  ];
  writeFileSync(
    join(APPLIED, 'kustomization.yaml'),
    [
      'apiVersion: kustomize.config.k8s.io/v1beta1',
      'kind: Kustomization',
      'resources:',
      '  - ../overlay',
      'patches:',
      ...remove('apps/v1', 'Deployment'),
      ...remove('monitoring.coreos.com/v1', 'ServiceMonitor'),
      '',
    ].join('\n'),
  );
}

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

/** A volume of the pod template that is an emptyDir, by name. */
const emptyDir = (name: string): { sizeLimit?: string } =>
  (template().spec.volumes.find((volume) => volume.name === name) as { emptyDir?: { sizeLimit?: string } } | undefined)?.emptyDir ??
  (() => {
    throw new Error(`no emptyDir volume ${name} in the pod template`);
  })();

/** A quantity of bytes (`64Mi`, `1G`, `500`) as a number, for tmpfs' size option. */
function bytes(quantity: string): number {
  const [, digits, unit = ''] = /^([0-9]+)(Ki|Mi|Gi|k|M|G)?$/.exec(quantity) ?? [];
  if (digits === undefined) throw new Error(`a size this test cannot read: ${quantity}`);
  const factor: Record<string, number> = { '': 1, Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3, k: 1e3, M: 1e6, G: 1e9 };
  return Number(digits) * factor[unit]!;
}

/** A pod's DNS name, as CoreDNS answers it (`pods insecure`). */
const podName = (ip: string) => `${ip.replace(/\./g, '-')}.${NS}.pod.cluster.local`;

/**
 * One replica of the Deployment as its pod would run it: the pod template's args and env, the
 * service account's files and the Secret's files mounted at their paths in a mount namespace of
 * its own (overlays on /etc and /run take the mount points; nothing on the machine changes), with
 * every mount read-only but the emptyDir, a tmpfs of its sizeLimit at its mountPath.
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
  const stored = double.get('secrets', NS, secretName());
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
  // the image has swarm on its PATH (in /run here, since /tmp is the emptyDir's) and a home it cannot write to
  mkdirSync(join(dir, 'run-up/swarm-bin'), { recursive: true });
  mkdirSync(join(dir, 'run-up/home'), { recursive: true });
  writeFileSync(join(dir, 'run-up/swarm-bin/swarm'), `#!/bin/sh\nexec '${process.execPath}' '${BIN}' "$@"\n`, { mode: 0o755 });
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
    // readOnlyRootFilesystem: the root (and the stand-ins for its /etc and /run) read-only
    'for m in / /etc /run; do mount -o remount,bind,ro "$m"; done',
    `mount -t tmpfs -o size=${bytes(emptyDir('tmp').sizeLimit ?? '64Mi')},mode=1777 tmpfs ${mountPath('tmp')}`,
    'exec "$@"',
  ].join('\n');
  const server = new URL(double.url);
  const child = spawn('unshare', ['--mount', '--propagation', 'private', 'sh', '-c', script, 'sh', ...container.command, ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    // what a pod's container gets: its env, the kubernetes Service's address, no kubeconfig
    env: {
      PATH: `/run/swarm-bin:${process.env.PATH ?? '/usr/bin:/bin'}`,
      HOME: '/run/home',
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
  writeOverlays();
  rendered = await kustomize(OVERLAY);
  // kubectl apply -k as the cluster's admin: every object but the Deployment and the ServiceMonitor
  const apply = await kubectl(double, ['apply', '-k', APPLIED]);
  expect(apply.code, apply.stderr).toBe(0);
  expect((byKind('Deployment').spec as { replicas: number }).replicas, 'a pod here for each replica').toBe(PODS.length);
  for (const [index, pod] of PODS.entries()) {
    managers.push(startInCluster(pod, index));
    // the first one up takes the Lease; the others find it held
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
  it('base: 2 replicas on the Lease, probes, requests and limits, swarm-kubernetes:latest, TLS from the Secret swarm-tls, all in the namespace swarm', async () => {
    const base = await kustomize(join(DEPLOY, 'base'));
    const find = (kind: string) => base.find((m) => m.kind === kind)!;
    const deployment = find('Deployment').spec as { replicas: number; template: Template };
    expect(deployment.replicas).toBe(2);
    const container = deployment.template.spec.containers[0]!;
    expect(container.image).toBe('swarm-kubernetes:latest');
    expect(container.imagePullPolicy).toBe('IfNotPresent');
    expect(container.command).toEqual(['/bin/sh', '-c']);
    expect(container.args).toHaveLength(1);
    for (const flag of ['exec swarm manage ', ' -c kubernetes ', ' --replication ', ' --advertise ', ' --tlsverify ', ' k8s://'])
      expect(container.args[0]).toContain(flag);
    expect(container.readinessProbe.exec.command).toEqual(['node', '-e', '$(PROBE)', '/_swarm/readyz']);
    expect(container.livenessProbe.exec.command).toEqual(['node', '-e', '$(PROBE)', '/_swarm/healthz']);
    expect(Object.keys(container.resources.requests).sort()).toEqual(['cpu', 'memory']);
    expect(Object.keys(container.resources.limits).sort()).toEqual(['cpu', 'memory']);
    expect(container.volumeMounts.find((mount) => mount.name === 'tls')?.mountPath).toBe('/etc/swarm/tls');
    expect(deployment.template.spec.volumes.find((volume) => volume.name === 'tls')?.secret?.secretName).toBe('swarm-tls');
    for (const manifest of base) {
      if (['ClusterRole', 'ClusterRoleBinding'].includes(manifest.kind)) expect(manifest.metadata.namespace).toBeUndefined();
      else if (manifest.kind === 'Namespace') expect(manifest.metadata.name).toBe('swarm');
      else expect(manifest.metadata.namespace, `${manifest.kind} ${manifest.metadata.name}`).toBe('swarm');
      for (const subject of manifest.subjects ?? []) expect(subject.namespace).toBe('swarm');
    }
    expect(base.map((m) => m.kind).sort()).toEqual(
      [
        'ClusterRole',
        'ClusterRoleBinding',
        'Deployment',
        'Namespace',
        'NetworkPolicy',
        'PodDisruptionBudget',
        'Role',
        'RoleBinding',
        'Service',
        'ServiceAccount',
      ].sort(),
    );
  });

  it('an overlay changes the namespace, image, replicas and TLS Secret without editing the base; the ServiceMonitor follows them', () => {
    const deployment = byKind('Deployment').spec as { replicas: number; template: Template };
    expect(deployment.replicas).toBe(REPLICAS);
    expect(template().spec.containers[0]!.image).toBe(IMAGE);
    // the generated Secret (name with its content's hash) is the one mounted
    const secret = manifests().find((m) => m.kind === 'Secret')!;
    expect(secret.metadata.name).toMatch(new RegExp(`^${SECRET}-[a-z0-9]{10}$`));
    expect(secretName()).toBe(secret.metadata.name);
    expect(Object.keys(secret.data ?? {}).sort()).toEqual(['ca.pem', 'cert.pem', 'key.pem']);
    expect(manifests().find((m) => m.kind === 'Namespace')!.metadata.name).toBe(NS);
    for (const manifest of manifests()) {
      if (!['Namespace', 'ClusterRole', 'ClusterRoleBinding'].includes(manifest.kind))
        expect(manifest.metadata.namespace, `${manifest.kind} ${manifest.metadata.name}`).toBe(NS);
      for (const subject of manifest.subjects ?? []) expect(subject).toEqual({ kind: 'ServiceAccount', name: ACCOUNT, namespace: NS });
    }
    // each manager's own metrics, over TLS with the managers' Secret, checked against the Service's name in this namespace
    const monitor = byKind('ServiceMonitor').spec as {
      selector: { matchLabels: Record<string, string> };
      endpoints: Array<{
        port: string;
        scheme: string;
        path: string;
        tlsConfig: Record<string, { name?: string; secret?: { name: string; key: string } } | string>;
      }>;
    };
    expect(byKind('ServiceMonitor').metadata.namespace).toBe(NS);
    expect(monitor.selector.matchLabels).toEqual(byKind('Service').metadata.labels);
    const [endpoint] = monitor.endpoints;
    expect(endpoint).toMatchObject({ port: 'docker', scheme: 'https', path: '/_swarm/metrics' });
    expect(endpoint!.tlsConfig).toEqual({
      serverName: `${ACCOUNT}.${NS}.svc`,
      ca: { secret: { name: secretName(), key: 'ca.pem' } },
      cert: { secret: { name: secretName(), key: 'cert.pem' } },
      keySecret: { name: secretName(), key: 'key.pem' },
    });
  });

  it("has a pod template the API server takes as a pod (dry run) that meets the restricted Pod Security level, control by control, and a Service selecting it on the container's port", async () => {
    const deployment = byKind('Deployment').spec as { template: Template };
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'swarm-manager-template', labels: deployment.template.metadata.labels },
      spec: deployment.template.spec,
    };
    const created = await raw(double, `/api/v1/namespaces/${NS}/pods?dryRun=All&fieldValidation=Strict`, { method: 'POST', body: pod });
    expect(created.status, created.text).toBeLessThan(300);
    expect(double.get('pods', NS, 'swarm-manager-template')).toBeUndefined();
    // judged as admission would: the pod as the API server defaulted it
    const stored = created.json<{ metadata: { annotations?: Record<string, string> }; spec: PodSpec }>();
    expect(restrictedViolations(stored.spec, stored.metadata.annotations)).toEqual([]);
    // the namespace enforces no level: docker run's pods, made there too, are as their clients ask
    expect(manifests().find((m) => m.kind === 'Namespace')!.metadata.labels?.['pod-security.kubernetes.io/enforce']).toBeUndefined();
    // the checks can fail: each control broken in turn is named
    const broken: Array<[string, (spec: PodSpec) => void]> = [
      ['Seccomp', (spec) => delete spec.securityContext!.seccompProfile],
      ['Seccomp', (spec) => (spec.securityContext!.seccompProfile = { type: 'Unconfined' })],
      ['Running as Non-root', (spec) => delete spec.securityContext!.runAsNonRoot],
      ['Running as Non-root user', (spec) => (spec.containers[0]!.securityContext!.runAsUser = 0)],
      ['Privilege Escalation', (spec) => delete spec.containers[0]!.securityContext!.allowPrivilegeEscalation],
      ['Capabilities', (spec) => (spec.containers[0]!.securityContext!.capabilities = { drop: ['NET_RAW'] })],
      ['Capabilities', (spec) => (spec.containers[0]!.securityContext!.capabilities!.add = ['CHOWN'])],
      ['Capabilities (baseline)', (spec) => (spec.containers[0]!.securityContext!.capabilities!.add = ['SYS_ADMIN'])],
      ['Privileged Containers', (spec) => (spec.containers[0]!.securityContext!.privileged = true)],
      ['Host Namespaces', (spec) => (spec.hostNetwork = true)],
      ['HostPath Volumes', (spec) => spec.volumes!.push({ name: 'host', hostPath: { path: '/' } })],
      ['Volume Types', (spec) => spec.volumes!.push({ name: 'nfs', nfs: { server: 'x', path: '/' } })],
      ['Host Ports', (spec) => (spec.containers[0]!.ports = [{ hostPort: 2376 }])],
      ['/proc Mount Type', (spec) => (spec.containers[0]!.securityContext!.procMount = 'Unmasked')],
      ['SELinux', (spec) => (spec.securityContext!.seLinuxOptions = { type: 'spc_t' })],
      ['AppArmor', (spec) => (spec.securityContext!.appArmorProfile = { type: 'Unconfined' })],
      ['Sysctls', (spec) => (spec.securityContext!.sysctls = [{ name: 'kernel.msgmax' }])],
      ['HostProcess', (spec) => (spec.securityContext!.windowsOptions = { hostProcess: true })],
    ];
    for (const [control, breakIt] of broken) {
      const spec = structuredClone(stored.spec);
      breakIt(spec);
      expect(
        restrictedViolations(spec).map((violation) => violation.split(':')[0]),
        control,
      ).toContain(control);
    }
    const service = byKind('Service').spec as { selector: Record<string, string>; ports: Array<{ port: number; targetPort: string }> };
    expect(service.selector).toEqual(deployment.template.metadata.labels);
    expect(service.ports).toEqual([expect.objectContaining({ port: 2376, targetPort: 'docker' })]);
  });

  it('has a PodDisruptionBudget and a NetworkPolicy for the managers, stored by the API server as applied', () => {
    const labels = template().metadata.labels;
    const budget = double.get('poddisruptionbudgets.policy', NS, ACCOUNT);
    const budgetSpec = budget?.spec as {
      maxUnavailable?: number;
      minAvailable?: number;
      selector: { matchLabels: Record<string, string> };
    };
    expect(budgetSpec.selector.matchLabels).toEqual(labels);
    // one manager may go at a time, never all: a drain keeps the API up
    expect(budgetSpec.maxUnavailable).toBe(1);
    expect(budgetSpec.maxUnavailable!).toBeLessThan(REPLICAS);
    expect(budget?.status).toEqual({ disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 });
    const policy = double.get('networkpolicies.networking.k8s.io', NS, ACCOUNT);
    const policySpec = policy?.spec as {
      podSelector: { matchLabels: Record<string, string> };
      policyTypes: string[];
      ingress: Array<{ from?: unknown; ports: Array<{ port: number; protocol: string }> }>;
    };
    expect(policySpec.podSelector.matchLabels).toEqual(labels);
    expect(policySpec.policyTypes).toEqual(['Ingress']);
    // only the API port in, the container's, from anywhere
    expect(policySpec.ingress).toEqual([{ ports: [{ port: template().spec.containers[0]!.ports[0]!.containerPort, protocol: 'TCP' }] }]);
  });

  it('the API server double refuses the budgets and policies the API server refuses, in its words', async () => {
    const refused = async (path: string, body: object, message: string) => {
      const answer = await raw(double, `${path}?dryRun=All`, { method: 'POST', body });
      expect(answer.status, answer.text).toBe(422);
      expect(answer.json<{ message: string }>().message).toContain(message);
    };
    const budget = (spec: object) => ({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'b' }, spec });
    const budgets = `/apis/policy/v1/namespaces/${NS}/poddisruptionbudgets`;
    await refused(budgets, budget({ minAvailable: 1, maxUnavailable: 1 }), 'spec: Invalid value: policy.PodDisruptionBudgetSpec{');
    await refused(budgets, budget({ minAvailable: 1, maxUnavailable: 1 }), 'minAvailable and maxUnavailable cannot be both set');
    await refused(budgets, budget({ maxUnavailable: -1 }), 'spec.maxUnavailable: Invalid value: -1: must be greater than or equal to 0');
    await refused(
      budgets,
      budget({ minAvailable: '150%' }),
      'spec.minAvailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"150%"}: must not be greater than 100%',
    );
    await refused(budgets, budget({ minAvailable: 'half' }), "a valid percent string must be a numeric string followed by an ending '%'");
    await refused(
      budgets,
      budget({ selector: { matchExpressions: [{ key: 'a', operator: 'In' }] } }),
      "spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
    );
    await refused(
      budgets,
      budget({ unhealthyPodEvictionPolicy: 'Never' }),
      'spec.unhealthyPodEvictionPolicy: Unsupported value: "Never": supported values: "AlwaysAllow", "IfHealthyBudget"',
    );
    const policy = (spec: object) => ({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'p' }, spec });
    const policies = `/apis/networking.k8s.io/v1/namespaces/${NS}/networkpolicies`;
    await refused(
      policies,
      policy({ ingress: [{ ports: [{ protocol: 'ICMP' }] }] }),
      'spec.ingress[0].ports[0].protocol: Unsupported value: "ICMP": supported values: "TCP", "UDP", "SCTP"',
    );
    await refused(
      policies,
      policy({ ingress: [{ ports: [{ port: 70000 }] }] }),
      'spec.ingress[0].ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive',
    );
    await refused(
      policies,
      policy({ ingress: [{ ports: [{ port: 'docker', endPort: 3000 }] }] }),
      'spec.ingress[0].ports[0].endPort: Invalid value: 3000: may not be specified when `port` is non-numeric',
    );
    await refused(policies, policy({ egress: [{ to: [{}] }] }), 'spec.egress[0].to[0]: Required value: must specify a peer');
    await refused(
      policies,
      policy({ egress: [{ to: [{ ipBlock: { cidr: '10.0.0.0/8' }, podSelector: {} }] }] }),
      'spec.egress[0].to[0]: Forbidden: may not specify both ipBlock and another peer',
    );
    await refused(
      policies,
      policy({ egress: [{ to: [{ ipBlock: { cidr: '10.0.0.0/8', except: ['11.0.0.0/16'] } }] }] }),
      'spec.egress[0].to[0].ipBlock.except[0]: Invalid value: "11.0.0.0/16": must be a strict subset of `cidr`',
    );
    await refused(
      policies,
      policy({ egress: [{ to: [{ ipBlock: { cidr: '10.0.0/8' } }] }] }),
      'spec.egress[0].to[0].ipBlock.cidr: Invalid value: "10.0.0/8": not a valid CIDR',
    );
    await refused(
      policies,
      policy({ policyTypes: ['Ingress', 'Sideways'] }),
      'spec.policyTypes[1]: Unsupported value: "Sideways": supported values: "Ingress", "Egress"',
    );
    // and takes what it allows, defaulted as networking/v1 defaults it
    const taken = await raw(double, `${policies}?dryRun=All`, { method: 'POST', body: policy({ egress: [{ ports: [{ port: 53 }] }] }) });
    expect(taken.status, taken.text).toBeLessThan(300);
    expect(taken.json<{ spec: unknown }>().spec).toEqual({
      podSelector: {},
      egress: [{ ports: [{ port: 53, protocol: 'TCP' }] }],
      policyTypes: ['Ingress', 'Egress'],
    });
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
  it('elect one primary on the Lease; every manager serves docker info over TLS with the nodes', async () => {
    const roles = await Promise.all(PODS.map(async (pod) => row(await systemStatus(pod), 'Role')));
    expect(roles).toEqual(['primary', ...PODS.slice(1).map(() => 'replica')]);
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

  it('run on a read-only root filesystem, writing only to the emptyDir at /tmp, and listen on the API port alone', async () => {
    for (const manager of managers) {
      const inPod = (...command: string[]) =>
        run('nsenter', ['--target', String(manager.child.pid), '--mount', '--', ...command]).then(
          () => 'ok',
          (error: { stderr?: string }) => error.stderr ?? 'failed',
        );
      // the setup is real: the root and /etc refuse a write, the emptyDir takes one
      expect(await inPod('touch', '/swarm-probe')).toMatch(/Read-only file system/);
      expect(await inPod('touch', '/etc/swarm-probe')).toMatch(/Read-only file system/);
      expect(await inPod('sh', '-c', 'touch /tmp/swarm-probe && rm /tmp/swarm-probe')).toBe('ok');
      // what the manager wrote there: the engine emulator's socket directory
      expect((await run('nsenter', ['--target', String(manager.child.pid), '--mount', '--', 'ls', '/tmp'])).stdout).toMatch(/^swarm-k8s-/m);
      // every TCP socket it listens on: the NetworkPolicy's one port is all it needs in
      const listening = (await run('ss', ['-Hltnp'])).stdout
        .split('\n')
        .filter((line) => line.includes(`pid=${manager.child.pid},`))
        .map((line) => line.trim().split(/\s+/)[3]);
      expect(listening).toEqual([`${manager.pod.ip}:${manager.pod.port}`]);
    }
  });

  it("pass the Deployment's readiness probe on the primary and the replicas", async () => {
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
