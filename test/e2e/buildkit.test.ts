import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestbed, type Testbed } from '../harness/engines.js';
import { startManager, type Manager } from '../harness/manager.js';
import { dockerConfigWithPlugins, type DockerConfig } from '../harness/toolchain.js';
import { accessConfig, certArgs, startAccessCluster, type AccessCluster } from './access-support.js';
import { itJudgedEveryEngineRequest, readAuditLog, type AuditLine } from './access-invariant.js';
import { tempDir, type CliResult } from './api-support.js';

/*
 * Issue 43 item 1: BuildKit through the manager, with the real docker CLI 28 and the buildx 0.13
 * and Compose v2 plugins (their default builder is BuildKit, with buildx's docker driver), in front
 * of real engines: two 20.10 and one 26.1. A build runs where its constraints place it, its session
 * (which brings the context) on the same engine, and `docker run` of the image is placed there.
 * Under access control, BuildKit builds are judged as classic builds are (the Solve's entitlements
 * and options, the Dockerfile's ADD URLs as it comes over the session), the image gets its
 * maker's owner labels, and nothing refused reaches an engine (the recording proxies' invariant).
 *
 * Indexes 153-155 and ports 28950-28951 and 29510 (a recording HTTP server) belong to this file.
 */

const PORT = 28950;
const ACCESS_PORT = 28951;
const FETCH_PORT = 29510;
const SERVED = `http://127.0.0.1:${FETCH_PORT}`;
const NODES = ['node153', 'node154', 'node155'];

let plugins: DockerConfig;
let work: { path: string; remove(): void };
let context: string;

/** The docker CLI with buildx and Compose v2 installed and no DOCKER_BUILDKIT: BuildKit is its default. */
function cli(
  host: string,
  args: string[],
  options: { cwd?: string; env?: Record<string, string>; binary?: string } = {},
): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = spawn(options.binary ?? 'docker', ['-H', host, ...args], { env: { ...plugins.env, ...options.env }, cwd: options.cwd });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
    child.stdin.end();
  });
}

async function cliOk(host: string, args: string[], options: { cwd?: string } = {}): Promise<string> {
  const result = await cli(host, args, options);
  if (result.code !== 0) throw new Error(`docker ${args.join(' ')} failed (${result.code}): ${result.stderr}`);
  return `${result.stdout}${result.stderr}`;
}

beforeAll(async () => {
  plugins = dockerConfigWithPlugins();
  work = await tempDir('swarm-e2e-buildkit-');
  context = join(work.path, 'context');
  mkdirSync(context);
  // COPY proves the build's session (which carries the context) reached the engine that built it
  writeFileSync(join(context, 'marker.txt'), 'from the build context\n');
  writeFileSync(join(context, 'Dockerfile'), 'FROM busybox:local\nARG STAMP=0\nCOPY marker.txt /marker\nRUN echo "$STAMP" > /stamp\n');
});

afterAll(() => {
  plugins?.remove();
  work?.remove();
});

describe('BuildKit builds through the manager', () => {
  let testbed: Testbed;
  let manager: Manager;
  const engineHost = (name: string) => `tcp://${testbed.engines.find((engine) => engine.name === name)!.addr}`;

  /** The engines holding an image, asked directly. */
  async function holders(image: string): Promise<string[]> {
    const answers = await Promise.all(NODES.map((name) => cli(engineHost(name), ['image', 'inspect', '--format', '{{.Id}}', image])));
    return NODES.filter((_, i) => answers[i]!.code === 0);
  }

  /** Runs the image through the manager: the node it was placed on, and what its /marker says. */
  async function runBuilt(image: string, name: string): Promise<{ node: string; marker: string }> {
    await cliOk(manager.host, ['run', '-d', '--name', name, image, 'sleep', '600']);
    const node = (await cliOk(manager.host, ['inspect', '--format', '{{.Node.Name}}', name])).trim();
    const marker = (await cliOk(manager.host, ['exec', name, 'cat', '/marker'])).trim();
    return { node, marker };
  }

  beforeAll(async () => {
    testbed = await startTestbed({ first: 153, count: 3, versions: { 155: '26.1' } });
    manager = await startManager({ discovery: testbed.addrs, port: PORT, expectNodes: 3 });
  }, 180_000);

  afterAll(async () => {
    await manager?.stop();
    await testbed?.stop();
  });

  it('docker build (BuildKit, the default with buildx) runs on the node a constraint names, and docker run is placed there', async () => {
    const output = await cliOk(manager.host, ['build', '--build-arg', 'constraint:node==node155', '-t', 'bk-default:1', context]);
    expect(output).toContain('naming to docker.io/library/bk-default:1');
    // buildx's docker driver, not a docker-container builder it would have to start
    expect(output).not.toMatch(/docker-container|moby\/buildkit/);
    expect(await holders('bk-default:1')).toEqual(['node155']);
    expect(await runBuilt('bk-default:1', 'bk-default-run')).toEqual({ node: 'node155', marker: 'from the build context' });
  });

  it('docker buildx build --load runs on a 20.10 engine its constraint names', async () => {
    const output = await cliOk(manager.host, [
      'buildx',
      'build',
      '--load',
      '--build-arg',
      'constraint:node==node154',
      '--build-arg',
      'STAMP=buildx',
      '-t',
      'bk-buildx:1',
      context,
    ]);
    expect(output).toContain('naming to docker.io/library/bk-buildx:1');
    expect(await holders('bk-buildx:1')).toEqual(['node154']);
    const placed = await runBuilt('bk-buildx:1', 'bk-buildx-run');
    expect(placed).toEqual({ node: 'node154', marker: 'from the build context' });
    expect((await cliOk(manager.host, ['exec', 'bk-buildx-run', 'cat', '/stamp'])).trim()).toBe('buildx');
  });

  it('a build with no constraint is recorded on the node that built it, where docker run then goes', async () => {
    await cliOk(manager.host, ['build', '--build-arg', 'STAMP=free', '-t', 'bk-free:1', context]);
    const built = await holders('bk-free:1');
    expect(built).toHaveLength(1);
    expect((await runBuilt('bk-free:1', 'bk-free-run')).node).toBe(built[0]);
  });

  it('keeps the calls and sessions of builds running at once each on its own engine', async () => {
    const targets = ['node153', 'node155', 'node154'];
    const outputs = await Promise.all(
      targets.map((node, i) =>
        cli(manager.host, ['build', '--build-arg', `constraint:node==${node}`, '--build-arg', `STAMP=${i}`, '-t', `bk-many:${i}`, context]),
      ),
    );
    for (const output of outputs) expect(output.code, output.stderr).toBe(0);
    for (const [i, node] of targets.entries()) expect(await holders(`bk-many:${i}`)).toEqual([node]);
  });

  it('docker compose build builds through the manager where its build args place it', async () => {
    const project = join(work.path, 'project');
    mkdirSync(project);
    writeFileSync(
      join(project, 'compose.yaml'),
      `services:\n  app:\n    image: bk-compose:1\n    build:\n      context: ${context}\n      args:\n        - constraint:node==node153\n`,
    );
    await cliOk(manager.host, ['compose', '-p', 'bkc', 'build'], { cwd: project });
    expect(await holders('bk-compose:1')).toEqual(['node153']);
    expect((await runBuilt('bk-compose:1', 'bk-compose-run')).node).toBe('node153');
  });

  it('docker buildx ls shows the default instance with the docker driver, as against one engine', async () => {
    const [front, direct] = await Promise.all([cliOk(manager.host, ['buildx', 'ls']), cliOk(engineHost('node153'), ['buildx', 'ls'])]);
    const instance = /^default\*\s+docker\s*$/m;
    expect(direct).toMatch(instance);
    expect(front).toMatch(instance);
    expect(front).toMatch(/^ \\_ default\s+\\_ default\s+running\s/m);
  });

  it('a build that no node can take fails with the scheduler explaining why, and nothing is built', async () => {
    const result = await cli(manager.host, ['build', '--build-arg', 'constraint:node==nowhere', '-t', 'bk-nowhere:1', context]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/constraint/);
    expect(await holders('bk-nowhere:1')).toEqual([]);
  });
});

describe('BuildKit builds under access control', () => {
  let cluster: AccessCluster;
  let server: Server;
  /** The paths the recording HTTP server was asked for: what an engine fetched. */
  const fetched: string[] = [];
  let scratch: string;
  const as = (person: 'alice' | 'bob', args: string[], env: Record<string, string> = {}) =>
    cli(cluster.manager.host, [...certArgs(cluster.dir, person), ...args], { env });
  /** A build context with this Dockerfile (and the marker file). */
  function contextWith(name: string, dockerfile: string): string {
    const dir = join(work.path, name);
    mkdirSync(dir);
    writeFileSync(join(dir, 'marker.txt'), 'from the build context\n');
    writeFileSync(join(dir, 'Dockerfile'), dockerfile);
    return dir;
  }

  /** The audit log's lines on a path ending so, once one is written (lines are written in batches). */
  async function auditedOn(suffix: string): Promise<AuditLine[]> {
    for (let tries = 0; tries < 50; tries++) {
      const lines = readAuditLog(join(cluster.dir, 'audit.log')).filter((line) => line.path.endsWith(suffix));
      if (lines.length > 0) return lines;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return [];
  }

  beforeAll(async () => {
    server = createServer((req, res) => {
      fetched.push(req.url ?? '');
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.end('fetched by the engine\n');
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(FETCH_PORT, '127.0.0.1', resolve);
    });
    cluster = await startAccessCluster({
      firstEngine: 153,
      engines: 2,
      port: ACCESS_PORT,
      recordEngines: true,
      config: () => {
        const config = accessConfig(undefined) as { access: { admission: [[string, Record<string, unknown>]] } };
        config.access.admission[0][1] = { ...config.access.admission[0][1], allowedUrls: [`${SERVED}/allowed/`] };
        return config;
      },
    });
    // the engines reach no registry, and a scoped caller's BuildKit build pulls its bases: FROM scratch
    scratch = contextWith('scratch', 'FROM scratch\nCOPY marker.txt /marker\n');
  }, 180_000);

  afterAll(async () => {
    await cluster?.stop();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  });

  it("refuses the network.host entitlement (RUN --network=host), --network host and security.insecure with the classic build's texts", async () => {
    const hostRun = contextWith('host-run', 'FROM busybox:local\nRUN --network=host true\n');
    const insecureRun = contextWith('insecure-run', 'FROM busybox:local\nRUN --security=insecure true\n');
    const cases: ReadonlyArray<readonly [string[], string]> = [
      [['buildx', 'build', '--load', '--allow', 'network.host', '-t', 'bk-host-run:1', hostRun], 'networkmode=host'],
      [['build', '--network', 'host', '-t', 'bk-host:1', scratch], 'networkmode=host'],
      [['buildx', 'build', '--load', '--network', 'host', '-t', 'bk-host:2', scratch], 'networkmode=host'],
      [['buildx', 'build', '--load', '--allow', 'security.insecure', '-t', 'bk-insecure:1', insecureRun], 'HostConfig.Privileged'],
      // contexts the engine would fetch itself, judged as a classic build's remote
      [['build', '-t', 'bk-remote:1', `${SERVED}/denied/context.tar`], `remote: the engine would fetch ${SERVED}/denied/context.tar`],
      [
        ['buildx', 'build', '--load', '--build-context', `extra=${SERVED}/denied/named.tar`, '-t', 'bk-named:1', scratch],
        `remote: the engine would fetch ${SERVED}/denied/named.tar`,
      ],
    ];
    for (const [args, refusal] of cases) {
      const refused = await as('alice', args);
      expect(refused.code, args.join(' ')).not.toBe(0);
      expect(refused.stderr).toContain(`admission policy "baseline" forbids ${refusal}`);
    }
    const images = await cluster.as('admin', ['images', '--format', '{{.Repository}}']);
    expect(images.stdout).not.toMatch(/bk-host|bk-insecure|bk-remote|bk-named/);
    expect(fetched).toEqual([]);
    // each refused Solve has its own audit line, denied by the admission policy
    const solves = await auditedOn('/grpc/moby.buildkit.v1.Control/Solve');
    expect(solves.filter((line) => !line.decision.allowed)).toHaveLength(cases.length);
  });

  it("builds alice's image with her owner labels where it was placed, and a container of it is placed there", async () => {
    const output = await as('alice', ['build', '-t', 'bk-alice:1', scratch]);
    expect(output.code, output.stderr).toBe(0);
    const holders: string[] = [];
    for (const engine of cluster.testbed.engines) {
      const labels = await cli(`tcp://${engine.addr}`, [
        ...certArgs(cluster.dir, 'admin'),
        'image',
        'inspect',
        '--format',
        '{{json .Config.Labels}}',
        'bk-alice:1',
      ]);
      if (labels.code !== 0) continue;
      holders.push(engine.name);
      expect(JSON.parse(labels.stdout)).toMatchObject({ 'com.docker.swarm.owner': 'alice', 'com.docker.swarm.team': 'team-a' });
    }
    expect(holders).toHaveLength(1);
    const created = await as('alice', ['create', '--name', 'bk-alice-run', 'bk-alice:1', '/marker']);
    expect(created.code, created.stderr).toBe(0);
    const node = await as('alice', ['inspect', '--format', '{{.Node.Name}}', 'bk-alice-run']);
    expect(node.stdout.trim()).toBe(holders[0]);
    // another team does not see it
    const bob = await as('bob', ['image', 'inspect', 'bk-alice:1']);
    expect(bob.code).not.toBe(0);
  });

  it('docker compose build by alice builds her image, with her owner labels', async () => {
    const project = join(work.path, 'access-project');
    mkdirSync(project);
    writeFileSync(
      join(project, 'compose.yaml'),
      `services:\n  app:\n    image: bk-alice-compose:1\n    build:\n      context: ${scratch}\n`,
    );
    const built = await cli(cluster.manager.host, [...certArgs(cluster.dir, 'alice'), 'compose', '-p', 'bkac', 'build'], { cwd: project });
    expect(built.code, built.stderr).toBe(0);
    const labels = await as('alice', ['image', 'inspect', '--format', '{{json .Config.Labels}}', 'bk-alice-compose:1']);
    expect(JSON.parse(labels.stdout)).toMatchObject({ 'com.docker.swarm.owner': 'alice', 'com.docker.swarm.team': 'team-a' });
  });

  it("refuses a name another team's image holds, as a classic build's -t", async () => {
    const bob = await as('bob', ['buildx', 'build', '--load', '-t', 'bk-bob:1', scratch]);
    expect(bob.code, bob.stderr).toBe(0);
    const alice = await as('alice', ['build', '-t', 'bk-bob:1', scratch]);
    expect(alice.code).not.toBe(0);
    expect(alice.stderr).toContain('the image name "bk-bob:1" is already in use');
  });

  it("judges the URLs the Dockerfile's ADD fetches (it comes over the session): refused outside allowedUrls, fetched under them", async () => {
    const before = fetched.length;
    const denied = contextWith('add-denied', `FROM scratch\nADD ${SERVED}/denied/file /file\n`);
    const refused = await as('alice', ['build', '-t', 'bk-add-denied:1', denied]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(`admission policy "baseline" forbids ADD: the engine would fetch ${SERVED}/denied/file`);
    const diffCopies = await auditedOn('/session/moby.filesync.v1.FileSync/DiffCopy');
    expect(diffCopies.map((line) => line.decision.allowed)).toEqual([false]);
    const allowed = contextWith('add-allowed', `FROM scratch\nADD ${SERVED}/allowed/file /file\n`);
    const built = await as('alice', ['build', '-t', 'bk-add-allowed:1', allowed]);
    expect(built.code, built.stderr).toBe(0);
    expect(fetched.slice(before)).toEqual(['/allowed/file']);
  });

  it("reads the Dockerfile's ADD with the build's args, and refuses a source it cannot know (a base image's ENV)", async () => {
    const before = fetched.length;
    const argument = contextWith('add-argument', 'FROM scratch\nARG SRC\nADD $SRC /x\n');
    const refused = await as('alice', ['build', '--build-arg', `SRC=${SERVED}/denied/argument`, argument]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(`admission policy "baseline" forbids ADD: the engine would fetch ${SERVED}/denied/argument`);
    const unknown = contextWith('add-unknown', 'FROM busybox:local\nADD $FROM_THE_IMAGE /x\n');
    const unjudged = await as('alice', ['buildx', 'build', '--load', unknown]);
    expect(unjudged.code).not.toBe(0);
    expect(unjudged.stderr).toContain(
      'admission policy "baseline" forbids ADD: the engine may fetch a URL that cannot be known here: $FROM_THE_IMAGE holds a variable',
    );
    expect(fetched.slice(before)).toEqual([]);
  });

  it("judges the docker CLI 20.10's own BuildKit (DOCKER_BUILDKIT=1: POST /build?version=2 and its session) alike", async () => {
    const before = fetched.length;
    // the 20.10 CLI builds with BuildKit itself, without buildx (an empty DOCKER_CONFIG: no plugins)
    const empty = join(work.path, 'cli-20.10');
    mkdirSync(empty, { recursive: true });
    const old = (args: string[]) =>
      cli(cluster.manager.host, [...certArgs(cluster.dir, 'alice'), ...args], {
        binary: '/usr/bin/docker',
        env: { DOCKER_BUILDKIT: '1', DOCKER_CONFIG: empty },
      });
    const denied = contextWith('v2-denied', 'FROM scratch\nARG SRC=' + SERVED + '/allowed/default\nADD $SRC /x\n');
    const refused = await old(['build', '--build-arg', `SRC=${SERVED}/denied/v2`, denied]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(`admission policy "baseline" forbids ADD: the engine would fetch ${SERVED}/denied/v2`);
    const built = await old(['build', '-t', 'bk-alice-v2:1', scratch]);
    expect(built.code, built.stderr).toBe(0);
    const labels = await as('alice', ['image', 'inspect', '--format', '{{json .Config.Labels}}', 'bk-alice-v2:1']);
    expect(JSON.parse(labels.stdout)).toMatchObject({ 'com.docker.swarm.owner': 'alice', 'com.docker.swarm.team': 'team-a' });
    expect(fetched.slice(before)).toEqual([]);
  });

  it('judges the classic builder as before: --network host refused', async () => {
    const host = await as('alice', ['build', '--network', 'host', '-t', 'bk-classic-host:1', scratch], { DOCKER_BUILDKIT: '0' });
    expect(host.code).not.toBe(0);
    expect(host.stderr).toContain('admission policy "baseline" forbids networkmode=host');
  });

  itJudgedEveryEngineRequest('buildkit', () => cluster);
});
