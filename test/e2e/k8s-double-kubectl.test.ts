import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestbed, type Testbed } from '../harness/engines.js';
import { startKubernetesDouble, type KubernetesDouble } from '../k8s-double/index.js';
import { eventually, kubectl, underTty } from '../k8s-double/testing.js';

// The double against the real kubectl: 1.32 (the machine's /usr/bin/kubectl, WebSocket exec)
// and 1.20 (Debian's kubernetes-client, unpacked by test/setup-machine.sh; its exec speaks SPDY
// only, which the double does not serve). Engine 152 runs the pods, two hollow nodes fill in.
const KUBECTL_OLD = '/opt/swarm-test/kubernetes-client/usr/bin/kubectl';
let testbed: Testbed;
let double: KubernetesDouble;
let dir: string;

const k = (...args: string[]) => kubectl(double, args);
const old = (...args: string[]) => kubectl(double, args, { binary: KUBECTL_OLD });
const manifest = (name: string, text: string) => {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
};

beforeAll(async () => {
  testbed = await startTestbed({ first: 152, count: 1 });
  double = await startKubernetesDouble({
    nodes: [{ engine: { host: testbed.engines[0]!.host, port: testbed.engines[0]!.port } }],
    hollowNodes: 2,
  });
  dir = mkdtempSync(join(tmpdir(), 'k8s-kubectl-'));
}, 120_000);

afterAll(async () => {
  await double?.stop();
  await testbed?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('Kubernetes double with kubectl 1.32', () => {
  it('is kubectl 1.32 talking to a 1.32 server', async () => {
    const version = await k('version', '-o', 'json');
    const versions = JSON.parse(version.stdout) as { clientVersion: { gitVersion: string }; serverVersion: { gitVersion: string } };
    expect(versions.clientVersion.gitVersion).toMatch(/^v1\.32\./);
    expect(versions.serverVersion.gitVersion).toBe('v1.32.4');
    const resources = await k('api-resources', '--api-group=');
    expect(resources.stdout).toMatch(/^pods\s+po\s+v1\s+true\s+Pod$/m);
    expect(resources.stdout).toMatch(/^nodes\s+no\s+v1\s+false\s+Node$/m);
  });

  it('gets and describes nodes', async () => {
    const nodes = await k('get', 'nodes', '-o', 'wide');
    expect(nodes.stderr).toBe('');
    expect(nodes.stdout).toMatch(
      /^NAME\s+STATUS\s+ROLES\s+AGE\s+VERSION\s+INTERNAL-IP\s+EXTERNAL-IP\s+OS-IMAGE\s+KERNEL-VERSION\s+CONTAINER-RUNTIME$/m,
    );
    expect(nodes.stdout).toMatch(/^node152\s+Ready\s+<none>\s+\S+\s+v1\.32\.4\s+127\.0\.0\.153\s+<none>\s+.+docker:\/\/20\.\S+$/m);
    expect(nodes.stdout).toMatch(/^hollow-1\s+Ready\s+/m);
    const described = await k('describe', 'node', 'node152');
    expect(described.stdout).toMatch(/^Name:\s+node152$/m);
    expect(described.stdout).toMatch(/^\s+HolderIdentity:\s+node152$/m);
    expect(described.stdout).toMatch(/^\s+Ready\s+True\s+.+KubeletReady\s+kubelet is posting ready status$/m);
    expect(described.stdout).toMatch(/^Allocated resources:/m);
  });

  it('applies a manifest twice (create, then a strategic merge patch) and describes the pod', async () => {
    const pod = (tier: string) =>
      `apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n  labels: {app: web, tier: ${tier}}\nspec:\n  nodeName: node152\n  terminationGracePeriodSeconds: 1\n  containers:\n  - name: web\n    image: busybox:local\n    command: [sh, -c, 'for i in 1 2 3; do echo line $i; done; exec httpd -f -p 80 -h /www']\n    ports: [{containerPort: 80}]\n`;
    const created = await k('apply', '-f', manifest('web.yaml', pod('front')));
    expect(created).toMatchObject({ code: 0, stdout: 'pod/web created\n', stderr: '' });
    const changed = await k('apply', '-f', manifest('web.yaml', pod('back')));
    expect(changed).toMatchObject({ code: 0, stdout: 'pod/web configured\n', stderr: '' });
    expect((await k('apply', '-f', manifest('web.yaml', pod('back')))).stdout).toBe('pod/web unchanged\n');
    await eventually('web Running', async () => (await k('get', 'pod', 'web', '-o', 'jsonpath={.status.phase}')).stdout === 'Running');
    const pods = await k('get', 'pods', '-o', 'wide', '--show-labels');
    expect(pods.stdout).toMatch(/^web\s+1\/1\s+Running\s+0\s+\S+\s+172\.30\.152\.\d+\s+node152\s+<none>\s+<none>\s+app=web,tier=back$/m);
    const described = await k('describe', 'pod', 'web');
    expect(described.stdout).toMatch(/^Status:\s+Running$/m);
    expect(described.stdout).toMatch(/Normal\s+Started\s+\S+\s+kubelet\s+Started container web/);
    const invalid = await k(
      'apply',
      '-f',
      manifest(
        'bad.yaml',
        'apiVersion: v1\nkind: Pod\nmetadata: {name: bad}\nspec:\n  containers:\n  - {name: c, image: busybox:local, bogus: 1}\n',
      ),
    );
    expect(invalid.code).not.toBe(0);
    expect(invalid.stderr).toContain('strict decoding error: unknown field "spec.containers[0].bogus"');
  });

  it('follows logs, execs, and runs an interactive shell over WebSocket', async () => {
    expect((await k('logs', 'web', '--tail', '1')).stdout).toBe('line 3\n');
    const follow = spawn('kubectl', ['--kubeconfig', double.kubeconfig, 'logs', '-f', 'web']);
    let followed = '';
    follow.stdout.on('data', (chunk: Buffer) => (followed += chunk.toString()));
    await eventually('followed lines', () => followed === 'line 1\nline 2\nline 3\n');
    follow.kill();
    const exec = await k('exec', 'web', '--', 'sh', '-c', 'echo out; echo err >&2; exit 3');
    expect(exec).toMatchObject({ code: 3, stdout: 'out\n' });
    expect(exec.stderr).toBe('err\ncommand terminated with exit code 3\n');
    const shell = await underTty(`kubectl --kubeconfig ${double.kubeconfig} exec -it web -- sh`, [
      { afterMs: 1500, text: 'echo tty-$((6*7))\n' },
      { afterMs: 500, text: 'exit 4\n' },
    ]);
    expect(shell.stdout).toContain('tty-42');
    expect(shell.code).toBe(4);
  });

  it('watches a pod go through graceful deletion, and tells who may do what', async () => {
    const watch = spawn('kubectl', ['--kubeconfig', double.kubeconfig, 'get', 'pods', '-w']);
    let watched = '';
    watch.stdout.on('data', (chunk: Buffer) => (watched += chunk.toString()));
    await eventually('watch listed web', () => /^web\s+1\/1\s+Running/m.test(watched));
    const deleted = await k('delete', 'pod', 'web');
    expect(deleted).toMatchObject({ code: 0, stdout: 'pod "web" deleted\n' });
    await eventually('watch saw Terminating', () => /^web\s+\S+\s+Terminating/m.test(watched));
    watch.kill();
    expect((await k('get', 'pod', 'web')).stderr).toBe('Error from server (NotFound): pods "web" not found\n');
    double.deny({ user: 'developer', verbs: ['delete'], resources: ['pods'] });
    expect((await kubectl(double, ['auth', 'can-i', 'delete', 'pods'], { context: 'double-developer' })).stdout).toBe('no\n');
    expect((await kubectl(double, ['auth', 'can-i', 'list', 'pods'], { context: 'double-developer' })).stdout).toBe('yes\n');
    const forbidden = await kubectl(double, ['delete', 'pod', 'anything'], { context: 'double-developer' });
    expect(forbidden.stderr).toBe(
      'Error from server (Forbidden): pods "anything" is forbidden: User "developer" cannot delete resource "pods" in API group "" in the namespace "default"\n',
    );
    double.clearDenyRules();
  });

  it('shows metrics with kubectl top, and the error when the metrics API is not there', async () => {
    expect((await k('top', 'nodes')).stdout).toMatch(/^hollow-0\s+\d+m\s+\d+%\s+\d+Mi\s+\d+%\s*$/m);
    double.setMetrics('absent');
    expect((await k('top', 'nodes')).stderr).toBe('error: Metrics API not available\n');
    double.setMetrics('served');
  });
});

describe('Kubernetes double with kubectl 1.20', () => {
  it('gets, applies (without client-side validation), reads logs and deletes; exec needs SPDY', async () => {
    expect(existsSync(KUBECTL_OLD)).toBe(true);
    expect((await old('version', '--client', '--short')).stdout).toContain('v1.20');
    expect((await old('get', 'nodes')).stdout).toMatch(/^node152\s+Ready\s+<none>\s+\S+\s+v1\.32\.4$/m);
    const file = manifest(
      'old.yaml',
      'apiVersion: v1\nkind: Pod\nmetadata: {name: old}\nspec:\n  nodeName: node152\n  terminationGracePeriodSeconds: 1\n  containers:\n  - {name: c, image: busybox:local, command: [sh, -c, "echo from-old; exec sleep 3600"]}\n',
    );
    // 1.20 validates on the client against /openapi/v2 (protobuf), which the double does not serve
    expect((await old('apply', '-f', file)).stderr).toBe(
      'Error from server (NotFound): the server could not find the requested resource\n',
    );
    expect((await old('apply', '--validate=false', '-f', file)).stdout).toBe('pod/old created\n');
    await eventually('old Running', async () => (await old('get', 'pod', 'old', '-o', 'jsonpath={.status.phase}')).stdout === 'Running');
    expect((await old('describe', 'pod', 'old')).stdout).toMatch(/^\s+State:\s+Running$/m);
    expect((await old('logs', 'old')).stdout).toBe('from-old\n');
    const exec = await old('exec', 'old', '--', 'true');
    expect(exec.code).not.toBe(0);
    expect(exec.stderr).toContain('upgrade to SPDY/3.1 is not supported by this API server double');
    expect((await old('delete', 'pod', 'old')).stdout).toBe('pod "old" deleted\n');
  });
});
