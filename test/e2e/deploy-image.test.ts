import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localServerAndClient } from '../harness/certificates.js';
import { startTestbed, type Testbed } from '../harness/engines.js';
import { startEtcd, type Service } from '../harness/services.js';
import { eventually, swarmList } from './discovery-kv-support.js';

// The manager's container images (core/deploy/image), built by their own script from freshly packed
// tarballs onto a real engine (node245): swarm, without the Kubernetes driver, and swarm-kubernetes,
// with it. swarm then runs there as an operator would: a manager in front of the two other engines,
// driven by the real docker CLI; `join` against a real etcd. Engines 245-247 and ports 26300-26309
// belong to this file.
//
// The first build on a machine makes the base image with debootstrap (minutes; cached in
// /var/cache/swarm-image afterwards). Every run builds on a fresh engine, whose vfs storage copies
// the whole image for each Dockerfile step: about 3 minutes.
const FIRST = 245;
const MANAGER_PORT = 26300;
const PUBLISHED_PORT = 26301;
const ETCD_PORT = 26302; // and 26303, its peer port
const TLS_PORT = 26304;
// an engine address where nothing listens, for managers whose nodes do not matter
const NO_ENGINE = 'nodes://127.0.0.1:26305';
const REPO = fileURLToPath(new URL('../../', import.meta.url));
const BUILD = join(REPO, 'core/deploy/image/build.sh');
const TAG = 'swarm-e2e:image';

const run = promisify(execFile);
const work = mkdtempSync(join(tmpdir(), 'swarm-image-e2e-'));
let testbed: Testbed;
let etcd: Service;
let builder: string;
let version: string;

const docker = async (host: string, args: readonly string[], timeout = 60_000): Promise<string> =>
  (await run('docker', ['-H', host, ...args], { timeout, maxBuffer: 1 << 22 })).stdout.trim();
/** The engine the image is built on and its containers run on. */
const onBuilder = (...args: string[]) => docker(builder, args);

/** `docker inspect --format` of a container or image on the builder. */
const inspect = (format: string, name: string) => onBuilder('inspect', '--format', format, name);

async function healthOf(name: string): Promise<string> {
  return inspect('{{.State.Health.Status}}', name);
}

beforeAll(async () => {
  [testbed, etcd] = await Promise.all([startTestbed({ first: FIRST, count: 3 }), startEtcd(ETCD_PORT)]);
  builder = `tcp://${testbed.engines[0]!.addr}`;
  // what `npm run pack` writes, into a folder of this test's own (the build already happened)
  const packages = join(work, 'packages');
  mkdirSync(packages);
  const workspaces = ['plugin-sdk', 'core', ...readdirSync(join(REPO, 'plugins')).map((name) => `plugins/${name}`)];
  await run('npm', ['pack', '--silent', '--pack-destination', packages, ...workspaces.flatMap((w) => ['--workspace', w])], {
    cwd: REPO,
    maxBuffer: 1 << 24,
  });
  version = (JSON.parse(readFileSync(join(REPO, 'core/package.json'), 'utf8')) as { version: string }).version;
  const started = Date.now();
  const { stdout, stderr } = await run('bash', [BUILD, '-H', builder, '--packages', packages, '--tag', TAG, '--kubernetes'], {
    cwd: work,
    timeout: 20 * 60_000,
    maxBuffer: 1 << 24,
  });
  console.log(`image built in ${Math.round((Date.now() - started) / 1000)} s:\n${stderr.trim()}`);
  expect(stdout.trim()).toBe(`swarm:${version}\nswarm-kubernetes:${version}`);
}, 25 * 60_000);

afterAll(async () => {
  await testbed?.stop();
  await etcd?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe('the image', () => {
  it('is tagged swarm:<version> and swarm:latest, with the OCI labels, a non-root user and a health check', async () => {
    const id = await inspect('{{.Id}}', TAG);
    expect(await inspect('{{.Id}}', `swarm:${version}`)).toBe(id);
    expect(await inspect('{{.Id}}', 'swarm:latest')).toBe(id);
    const config = JSON.parse(await inspect('{{json .Config}}', TAG)) as {
      Labels: Record<string, string>;
      User: string;
      Entrypoint: string[];
      Cmd: string[];
      Env: string[];
      WorkingDir: string;
      ExposedPorts: Record<string, unknown>;
      Healthcheck: { Test: string[] };
    };
    expect(config.Labels).toMatchObject({
      'org.opencontainers.image.title': 'swarm',
      'org.opencontainers.image.version': version,
      'org.opencontainers.image.licenses': 'Apache-2.0',
    });
    expect(config.Labels['org.opencontainers.image.source']).toMatch(/\S/);
    expect(config.User).toBe('10001:10001');
    expect(config.Entrypoint).toEqual(['swarm']);
    expect(config.Cmd).toEqual(['--help']);
    expect(config.WorkingDir).toBe('/opt/swarm');
    expect(Object.keys(config.ExposedPorts)).toEqual(['2375/tcp']);
    expect(config.Env).toContain('SWARM_HOST=:2375');
    expect(config.Env.find((entry) => entry.startsWith('PATH='))).toMatch(/^PATH=\/opt\/swarm\/node_modules\/\.bin:/);
    expect(config.Healthcheck.Test).toEqual(['CMD', 'node', '/opt/swarm/node_modules/@swarm/core/deploy/image/healthcheck.mjs']);
    // the Dockerfile's default version (a build without build.sh) is the package's
    expect(readFileSync(join(REPO, 'core/deploy/image/Dockerfile'), 'utf8')).toContain(`ARG SWARM_VERSION=${version}\n`);
    // Node.js 20 from the base, and swarm itself
    expect(await onBuilder('run', '--rm', '--entrypoint', 'node', TAG, '--version')).toMatch(/^v20\./);
    expect(await onBuilder('run', '--rm', TAG, '--version')).toBe(`swarm version ${version}`);
  });

  it('leaves the Kubernetes driver and its client out of swarm, which says where they are; swarm-kubernetes has them', async () => {
    const size = async (image: string) => Number(await inspect('{{.Size}}', image));
    const [lean, withDriver] = [await size(TAG), await size(`swarm-kubernetes:${version}`)];
    console.log(`image sizes: swarm ${lean} bytes, swarm-kubernetes ${withDriver} bytes`);
    // the Kubernetes client is most of what the manager installs
    expect(withDriver - lean).toBeGreaterThan(40_000_000);
    // each run copies the image on the builder's vfs storage: one listing per image
    const scope = (image: string) => onBuilder('run', '--rm', '--entrypoint', 'ls', image, 'node_modules/@swarm', 'node_modules');
    expect(await scope(TAG)).not.toMatch(/driver-kubernetes|^@kubernetes$/m);
    const full = await scope(`swarm-kubernetes:${version}`);
    expect(full).toMatch(/^driver-kubernetes$/m);
    expect(full).toMatch(/^@kubernetes$/m);
    expect(await inspect('{{index .Config.Labels "org.opencontainers.image.title"}}', `swarm-kubernetes:${version}`)).toBe(
      'swarm-kubernetes',
    );
    // -c kubernetes in the lean image: refused at start, naming the package and the image
    const refused = await run('docker', ['-H', builder, 'run', '--rm', TAG, 'manage', '-c', 'kubernetes', 'k8s://']).then(
      () => undefined,
      (error: { stdout: string; stderr: string }) => `${error.stdout}${error.stderr}`,
    );
    expect(refused).toMatch(
      /unknown cluster driver "kubernetes"; available: .*; it is in @swarm\/driver-kubernetes, an optional dependency of @swarm\/core not installed here \(the lean image swarm leaves it out\): use the image swarm-kubernetes, or npm install @swarm\/driver-kubernetes/,
    );
    // swarm-kubernetes loads the driver and starts (outside a cluster it then waits for one)
    await onBuilder('run', '-d', '--name', 'swarm-kubernetes', `swarm-kubernetes:${version}`, 'manage', '-c', 'kubernetes', 'k8s://');
    await eventually(
      async () => {
        const logs = await run('docker', ['-H', builder, 'logs', 'swarm-kubernetes']);
        return /"driver":"kubernetes","msg":"Deployment built"/.test(logs.stdout + logs.stderr);
      },
      'swarm-kubernetes to build its deployment with the kubernetes driver',
      60_000,
    );
    await onBuilder('rm', '-f', 'swarm-kubernetes');
  }, 300_000);

  it('runs a manager in front of the other two engines that the docker CLI places a container through', async () => {
    const [, second, third] = testbed.engines;
    const discovery = `nodes://${second!.addr},${third!.addr}`;
    // host networking: the engines listen on this machine's loopback addresses
    await onBuilder(
      'run',
      '-d',
      '--name',
      'swarm-manager',
      '--network',
      'host',
      TAG,
      'manage',
      '-H',
      `tcp://127.0.0.1:${MANAGER_PORT}`,
      discovery,
    );
    const swarm = `tcp://127.0.0.1:${MANAGER_PORT}`;
    const info = () => docker(swarm, ['info']).catch(() => '');
    await eventually(async () => (await info()).match(/└ Status: Healthy/g)?.length === 2, 'two healthy nodes in docker info', 60_000);
    expect(await info()).toMatch(/Nodes: 2\n/);

    const id = await docker(swarm, ['run', '-d', 'busybox:local', 'sleep', '60']);
    const listed = await docker(swarm, ['ps', '--no-trunc', '--format', '{{.ID}} {{.Names}}']);
    expect(listed).toMatch(new RegExp(`^${id} (node246|node247)/`, 'm'));

    // the manager runs as the image's user, not root
    expect(await onBuilder('exec', 'swarm-manager', 'id')).toBe('uid=10001(swarm) gid=10001(swarm) groups=10001(swarm)');
    expect(await onBuilder('exec', 'swarm-manager', 'grep', '^Uid:', '/proc/1/status')).toMatch(/^Uid:\s+10001\s+10001\s+10001\s+10001$/);

    // the image's own health check turns it healthy (first check after its 10 s interval)
    await eventually(async () => (await healthOf('swarm-manager')) === 'healthy', 'the manager container to be healthy', 60_000);
    const log = JSON.parse(await inspect('{{json .State.Health.Log}}', 'swarm-manager')) as Array<{ Output: string }>;
    expect(log.at(-1)!.Output).toMatch(new RegExp(`^healthy: /_swarm/healthz on tcp://127\\.0\\.0\\.1:${MANAGER_PORT} answered 200`));
  });

  it('listens on all addresses by default, as Swarm classic image did: docker run -p PORT:2375 IMAGE manage', async () => {
    const engine = testbed.engines[0]!;
    await onBuilder('run', '-d', '--name', 'swarm-published', '-p', `${engine.host}:${PUBLISHED_PORT}:2375`, TAG, 'manage', NO_ENGINE);
    await eventually(
      async () => {
        const response = await fetch(`http://${engine.host}:${PUBLISHED_PORT}/_ping`).catch(() => undefined);
        return response?.status === 200;
      },
      'the published manager to answer /_ping',
      30_000,
    );
  });

  it('checks a TLS manager with the client certificate when it runs with --tlsverify', async () => {
    const tls = join(work, 'tls');
    mkdirSync(tls);
    await localServerAndClient(tls);
    mkdirSync(join(tls, 'client'));
    await run('cp', [join(tls, 'client-cert.pem'), join(tls, 'client/cert.pem')]);
    await run('cp', [join(tls, 'client-key.pem'), join(tls, 'client/key.pem')]);
    // readable by the image's user (an operator would chown them to uid 10001)
    for (const file of ['ca.pem', 'server-cert.pem', 'server-key.pem', 'client/cert.pem', 'client/key.pem'])
      chmodSync(join(tls, file), 0o644);
    chmodSync(tls, 0o755);
    chmodSync(join(tls, 'client'), 0o755);
    await onBuilder(
      'run',
      '-d',
      '--name',
      'swarm-tls',
      '--network',
      'host',
      '-v',
      `${tls}:/tls:ro`,
      '-e',
      'DOCKER_CERT_PATH=/tls/client',
      TAG,
      'manage',
      '-H',
      `tcp://127.0.0.1:${TLS_PORT}`,
      '--tlsverify',
      '--tlscacert',
      '/tls/ca.pem',
      '--tlscert',
      '/tls/server-cert.pem',
      '--tlskey',
      '/tls/server-key.pem',
      NO_ENGINE,
    );
    await eventually(async () => (await healthOf('swarm-tls')) === 'healthy', 'the TLS manager container to be healthy', 60_000);
    const log = JSON.parse(await inspect('{{json .State.Health.Log}}', 'swarm-tls')) as Array<{ Output: string }>;
    expect(log.at(-1)!.Output).toMatch(new RegExp(`^healthy: /_swarm/healthz on tcp://127\\.0\\.0\\.1:${TLS_PORT} answered 200`));
  });

  it('registers an engine with `join` that `swarm list` then lists, and its health check follows the process', async () => {
    const discovery = `etcd://${etcd.addr}/image`;
    const advertised = testbed.engines[2]!.addr;
    await onBuilder(
      'run',
      '-d',
      '--name',
      'swarm-join',
      '--network',
      'host',
      TAG,
      'join',
      '--advertise',
      advertised,
      '--heartbeat',
      '1s',
      '--ttl',
      '3s',
      discovery,
    );
    await eventually(async () => (await swarmList(discovery)).includes(advertised), 'the joined engine in swarm list', 30_000);
    // the image's own `swarm list` sees it too
    expect(await onBuilder('run', '--rm', '--network', 'host', TAG, 'list', '--timeout', '5s', discovery)).toBe(advertised);
    await eventually(async () => (await healthOf('swarm-join')) === 'healthy', 'the join container to be healthy', 60_000);
    const log = JSON.parse(await inspect('{{json .State.Health.Log}}', 'swarm-join')) as Array<{ Output: string }>;
    expect(log.at(-1)!.Output).toMatch(/^healthy: swarm join \(pid 1\) is running/);
  });
});
