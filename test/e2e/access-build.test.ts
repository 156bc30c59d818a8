import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileAsync } from './api-support.js';
import { accessConfig, startAccessCluster, type AccessCluster, type Person } from './access-support.js';
import { itJudgedEveryEngineRequest } from './access-invariant.js';

/*
 * Issue 42, holes 4 and 5, with the real docker CLI (the legacy builder: DOCKER_BUILDKIT=0) and
 * real engines: a build's RUN steps run in a container made of its query (`--network`,
 * `--cgroup-parent`, `--isolation`), judged as the same fields of a container; a build's `remote`
 * and an import's `fromSrc` make the engine fetch a URL from its own place in the network, refused
 * unless under `allowedUrls`; so does a Dockerfile's `ADD http://...`, its variables expanded as the
 * classic builder expands them. A recording HTTP server on 127.0.0.1 shows whether an engine fetched.
 * alice is baseline (team a), bob restricted (team b), as access-support binds them.
 *
 * Indexes 176-177 and ports 28400-28419 belong to this file (manager 28400, the HTTP server 28401).
 */

const PORT = 28400;
const FETCH_PORT = 28401;
const SERVED = `http://127.0.0.1:${FETCH_PORT}`;
const BOB_OK = ['--user', '1000', '--security-opt', 'no-new-privileges', '-m', '64m', '--cpus', '0.5'];

let cluster: AccessCluster;
let server: Server;
/** The paths the recording server was asked for, in order. */
const fetched: string[] = [];
let context: string;
let archive: string;

function forbids(level: string, rest: string): string {
  return `Error response from daemon: admission policy "${level}" forbids ${rest}`;
}

async function ok(person: Person, args: string[]): Promise<string> {
  const result = await cluster.as(person, args);
  if (result.code !== 0) throw new Error(`docker ${args.join(' ')} as ${person} failed (${result.code}): ${result.stderr}`);
  return result.stdout.trim();
}

beforeAll(async () => {
  server = createServer((req, res) => {
    fetched.push(req.url ?? '');
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    // FROM scratch: a team member's build of a remote context pulls its bases (the manager cannot
    // read that Dockerfile to know which are shared), and these engines reach no registry.
    res.end('FROM scratch\nLABEL note=fetched-by-the-engine\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(FETCH_PORT, '127.0.0.1', resolve);
  });
  cluster = await startAccessCluster({
    firstEngine: 176,
    engines: 2,
    port: PORT,
    recordEngines: true,
    config: () => {
      const config = accessConfig(undefined) as { access: { admission: [[string, Record<string, unknown>]] } };
      config.access.admission[0][1] = { ...config.access.admission[0][1], allowedUrls: [`${SERVED}/allowed/`] };
      return config;
    },
  });
  context = join(cluster.dir, 'context');
  mkdirSync(context);
  // the number of network interfaces a step sees: the host's many, or a container's lo and eth0
  writeFileSync(join(context, 'Dockerfile'), 'FROM busybox:local\nRUN test "$(tail -n +3 /proc/net/dev | wc -l)" -le 2\n');
  const rootfs = join(cluster.dir, 'rootfs');
  mkdirSync(rootfs);
  writeFileSync(join(rootfs, 'hello.txt'), 'imported\n');
  archive = join(cluster.dir, 'rootfs.tar');
  await execFileAsync('tar', ['-cf', archive, '-C', rootfs, '.']);
  await Promise.all([
    ok('alice', ['run', '-d', '--name', 'build-alice-app', 'busybox:local', 'sleep', '600']),
    ok('bob', ['run', '-d', '--name', 'build-bob-app', ...BOB_OK, 'busybox:local', 'sleep', '600']),
    ok('bob', ['network', 'create', 'build-bob-net']),
  ]);
}, 180_000);

afterAll(async () => {
  await cluster?.stop();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
});

describe('build-time options (hole 4)', () => {
  // [what, flags, the refusal after `forbids`]
  const REFUSED: ReadonlyArray<readonly [string, string[], string]> = [
    ['--network host', ['--network', 'host'], 'networkmode=host'],
    ["--cgroup-parent into the engine's own", ['--cgroup-parent', '/docker'], 'cgroupparent: /docker'],
    ['--isolation process', ['--isolation', 'process'], 'isolation=process'],
  ];
  it.each(REFUSED)('refuses docker build %s at baseline and restricted', async (_, flags, refusal) => {
    const alice = await cluster.as('alice', ['build', '-q', ...flags, context]);
    expect(alice.code).not.toBe(0);
    expect(alice.stderr).toContain(forbids('baseline', refusal));
    const bob = await cluster.as('bob', ['build', '-q', ...flags, context]);
    expect(bob.stderr).toContain(forbids('restricted', refusal));
  });

  it("answers --network container:<bob's> as for a container nobody has, as docker run is answered", async () => {
    const theirs = await cluster.as('alice', ['build', '-q', '--network', 'container:build-bob-app', context]);
    expect(theirs.code).not.toBe(0);
    expect(theirs.stderr).toContain('No such container: build-bob-app');
    const nobodys = await cluster.as('alice', ['build', '-q', '--network', 'container:build-nobody-app', context]);
    const answer = (stderr: string) => stderr.split('\n').find((line) => line.startsWith('Error response from daemon'));
    expect(answer(nobodys.stderr)?.replaceAll('nobody', 'bob')).toBe(answer(theirs.stderr));
    const create = await cluster.as('alice', ['create', '--pull', 'never', '--network', 'container:build-bob-app', 'busybox:local']);
    expect(answer(create.stderr)).toBe(answer(theirs.stderr));
  });

  it("answers --network <bob's network> as for a network nobody has", async () => {
    const theirs = await cluster.as('alice', ['build', '-q', '--network', 'build-bob-net', context]);
    expect(theirs.code).not.toBe(0);
    expect(theirs.stderr).toContain('network build-bob-net not found');
    const nobodys = await cluster.as('alice', ['build', '-q', '--network', 'build-nobody-net', context]);
    expect(nobodys.stderr).toContain('network build-nobody-net not found');
  });

  it('builds a plain build, for baseline and restricted, its RUN step in a network namespace of its own', async () => {
    const alice = await ok('alice', ['build', '-q', '-t', 'build-alice-plain', context]);
    expect(alice).toMatch(/^sha256:[0-9a-f]{64}$/);
    const bob = await ok('bob', ['build', '-q', '-t', 'build-bob-plain', context]);
    expect(bob).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it("builds with --network none and her own container's network", async () => {
    await ok('alice', ['build', '-q', '--network', 'none', context]);
    await ok('alice', [
      'build',
      '-q',
      '--network',
      'container:build-alice-app',
      '--build-arg',
      'affinity:container==build-alice-app',
      context,
    ]);
  });

  it('judges the first of repeated parameters, which is the one dockerd reads, for either builder', async () => {
    for (const query of ['networkmode=host&networkmode=default', 'version=2&networkmode=host', 'networkmode=host&version=1']) {
      const answer = await cluster.call('alice', 'POST', `/v1.41/build?${query}`);
      expect(answer.status).toBe(403);
      expect(JSON.parse(answer.text)).toEqual({ message: 'admission policy "baseline" forbids networkmode=host' });
    }
    const second = await cluster.call('alice', 'POST', '/v1.41/build?networkmode=default&networkmode=host&remote=client-session');
    expect(second.text).not.toContain('admission policy');
  });
});

describe('URLs the engine fetches (hole 5)', () => {
  it("refuses a build's remote URL, and the engine fetches nothing", async () => {
    const before = fetched.length;
    for (const remote of [`${SERVED}/denied/Dockerfile`, 'http://127.0.0.177:2376/version', `127.0.0.1:${FETCH_PORT}/denied`]) {
      const answer = await cluster.call('alice', 'POST', `/v1.41/build?remote=${encodeURIComponent(remote)}`);
      expect(answer.status).toBe(403);
      expect((JSON.parse(answer.text) as { message: string }).message).toContain('admission policy "baseline" forbids remote: ');
    }
    const bob = await cluster.call('bob', 'POST', `/v1.41/build?remote=${encodeURIComponent(`${SERVED}/allowed/../denied/Dockerfile`)}`);
    expect(JSON.parse(bob.text)).toEqual({
      message: `admission policy "restricted" forbids remote: the engine would fetch ${SERVED}/denied/Dockerfile: it is outside ${SERVED}/allowed/`,
    });
    expect(fetched.slice(before)).toEqual([]);
  });

  it('builds from a remote URL under allowedUrls: the engine fetches it', async () => {
    const before = fetched.length;
    const answer = await cluster.call(
      'alice',
      'POST',
      `/v1.41/build?t=build-alice-remote&remote=${encodeURIComponent(`${SERVED}/allowed/Dockerfile`)}`,
    );
    expect(answer.status).toBe(200);
    expect(answer.text).toContain('fetched-by-the-engine');
    expect(fetched.slice(before)).toEqual(['/allowed/Dockerfile']);
  });

  it('refuses docker import of a URL, and the engine fetches nothing', async () => {
    const before = fetched.length;
    const result = await cluster.as('alice', ['import', `${SERVED}/denied/rootfs.tar`]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(
      forbids('baseline', `fromSrc: the engine would fetch ${SERVED}/denied/rootfs.tar: it is outside ${SERVED}/allowed/`),
    );
    const bare = await cluster.call('bob', 'POST', `/v1.41/images/create?fromSrc=${encodeURIComponent(`127.0.0.1:${FETCH_PORT}/x.tar`)}`);
    expect(bare.status).toBe(403);
    expect(bare.text).toContain(`forbids fromSrc: the engine would fetch ${SERVED}/x.tar`);
    expect(fetched.slice(before)).toEqual([]);
  });

  it('imports an uploaded archive (fromSrc=-, the body)', async () => {
    // every engine imports it (`node176: sha256:...`)
    const ids = await ok('alice', ['import', archive, 'build-alice-imported']);
    expect(ids).toMatch(/sha256:[0-9a-f]{64}/);
    expect(await ok('alice', ['images', '-q', 'build-alice-imported'])).toMatch(/^[0-9a-f]{12}/);
  });
});

describe("URLs the engine fetches for a Dockerfile's ADD (hole 5 through the Dockerfile)", () => {
  let made = 0;
  /** A context directory holding only this Dockerfile. */
  function contextWith(dockerfile: string): string {
    const dir = join(cluster.dir, `add-context-${made++}`);
    mkdirSync(dir);
    writeFileSync(join(dir, 'Dockerfile'), dockerfile);
    return dir;
  }

  it('refuses a legacy build whose Dockerfile ADDs a URL outside allowedUrls, at baseline and restricted, and the engine fetches nothing', async () => {
    const before = fetched.length;
    const dir = contextWith(`FROM scratch\nADD ${SERVED}/denied/containers/json /x\n`);
    const refusal = `ADD: the engine would fetch ${SERVED}/denied/containers/json: it is outside ${SERVED}/allowed/`;
    const alice = await cluster.as('alice', ['build', '-q', dir]);
    expect(alice.code).not.toBe(0);
    expect(alice.stderr).toContain(forbids('baseline', refusal));
    const bob = await cluster.as('bob', ['build', '-q', dir]);
    expect(bob.stderr).toContain(forbids('restricted', refusal));
    // the JSON form, continued over two lines
    const json = await cluster.as('alice', ['build', '-q', contextWith(`FROM scratch\nADD ["${SERVED}/denied/\\\nj", "/x"]\n`)]);
    expect(json.stderr).toContain(forbids('baseline', `ADD: the engine would fetch ${SERVED}/denied/j: it is outside`));
    expect(fetched.slice(before)).toEqual([]);
  });

  it('builds one whose ADD URL is under allowedUrls: the engine fetches it, from the context the client sent', async () => {
    const before = fetched.length;
    const dir = contextWith(`FROM scratch\nADD ${SERVED}/allowed/fetched.txt /fetched.txt\nLABEL note=add-allowed\n`);
    const id = await ok('alice', ['build', '-q', '-t', 'build-alice-add', dir]);
    expect(id).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(fetched.slice(before)).toEqual(['/allowed/fetched.txt']);
    expect(await ok('alice', ['image', 'inspect', '-f', '{{.Config.Labels.note}}', 'build-alice-add'])).toBe('add-allowed');
  });

  it('judges a URL made of a build arg as the engine would expand it', async () => {
    const before = fetched.length;
    const dir = contextWith('FROM scratch\nARG BASE\nADD ${BASE}/x /x\n');
    const denied = await cluster.as('alice', ['build', '-q', '--build-arg', `BASE=${SERVED}/denied`, dir]);
    expect(denied.code).not.toBe(0);
    expect(denied.stderr).toContain(
      forbids('baseline', `ADD: the engine would fetch ${SERVED}/denied/x: it is outside ${SERVED}/allowed/`),
    );
    expect(fetched.slice(before)).toEqual([]);
    await ok('alice', ['build', '-q', '--build-arg', `BASE=${SERVED}/allowed`, dir]);
    expect(fetched.slice(before)).toEqual(['/allowed/x']);
  });

  it("refuses a source the base image's ENV could make a URL of, whatever the build arg", async () => {
    const before = fetched.length;
    const dir = contextWith('FROM busybox:local\nARG BASE\nADD ${BASE}/x /x\n');
    const result = await cluster.as('alice', ['build', '-q', '--build-arg', `BASE=${SERVED}/allowed`, dir]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(
      forbids('baseline', 'ADD: the engine may fetch a URL that cannot be known here: ${BASE}/x holds a variable'),
    );
    expect(fetched.slice(before)).toEqual([]);
  });
});

describe('build triggers a commit or import writes (ONBUILD ADD in changes, hole 5 through a later build)', () => {
  const denied = (path: string) => `ADD: the engine would fetch ${SERVED}/denied/${path}: it is outside ${SERVED}/allowed/`;

  it('refuses docker commit --change ONBUILD ADD outside allowedUrls, and makes no image', async () => {
    const before = fetched.length;
    const change = `ONBUILD ADD ${SERVED}/denied/commit /x`;
    const result = await cluster.as('alice', ['commit', '--change', change, 'build-alice-app', 'build-alice-trigger-denied']);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(forbids('baseline', denied('commit')));
    // in any case of the keywords, among other changes, the JSON form
    const mixed = await cluster.as('alice', [
      'commit',
      '--change',
      'ENV A=1',
      '--change',
      `onbuild add --chown=1:1 ["${SERVED}/denied/json", "/y"]`,
      'build-alice-app',
    ]);
    expect(mixed.stderr).toContain(forbids('baseline', denied('json')));
    // a variable: the builds on the image expand it with their own environment
    const variable = await cluster.as('alice', ['commit', '--change', 'ONBUILD ADD ${URL}/x /x', 'build-alice-app']);
    expect(variable.stderr).toContain(
      forbids('baseline', 'ADD: the engine may fetch a URL that cannot be known here: ${URL}/x holds a variable'),
    );
    expect((await cluster.as('alice', ['image', 'inspect', 'build-alice-trigger-denied'])).code).not.toBe(0);
    expect(fetched.slice(before)).toEqual([]);
  });

  it("refuses a commit whose body, or whose container's config, carries the trigger (the API's OnBuild)", async () => {
    const body = await cluster.call('alice', 'POST', '/v1.41/commit?container=build-alice-app', {
      onbuild: [`ADD ${SERVED}/denied/body /b`],
    });
    expect(body.status).toBe(403);
    expect(body.text).toContain(`forbids ${denied('body')}`);
    // a create may carry OnBuild (it runs nothing); the commit that would give it to an image is judged
    const create = await cluster.call('alice', 'POST', '/v1.41/containers/create?name=build-alice-onbuild', {
      Image: 'busybox:local',
      Cmd: ['true'],
      OnBuild: [`ADD ${SERVED}/denied/container /c`],
    });
    expect(create.status).toBe(201);
    const commit = await cluster.call('alice', 'POST', '/v1.41/commit?container=build-alice-onbuild');
    expect(commit.status).toBe(403);
    expect(commit.text).toContain(`forbids ${denied('container')}`);
  });

  it('commits one whose trigger is under allowedUrls: the image carries it', async () => {
    const change = `ONBUILD ADD ${SERVED}/allowed/commit.txt /commit.txt`;
    await ok('alice', ['commit', '--change', change, 'build-alice-app', 'build-alice-trigger']);
    expect(await ok('alice', ['image', 'inspect', '-f', '{{json .Config.OnBuild}}', 'build-alice-trigger'])).toBe(
      JSON.stringify([`ADD ${SERVED}/allowed/commit.txt /commit.txt`]),
    );
  });

  it('refuses docker import --change ONBUILD ADD outside allowedUrls; imports one under it, whose builds fetch it', async () => {
    const before = fetched.length;
    const refused = await cluster.as('alice', [
      'import',
      '--change',
      `ONBUILD ADD ${SERVED}/denied/import /i`,
      archive,
      'build-alice-import-denied',
    ]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(forbids('baseline', denied('import')));
    expect(fetched.slice(before)).toEqual([]);
    await ok('alice', [
      'import',
      '--change',
      `ONBUILD ADD ${SERVED}/allowed/import.txt /import.txt`,
      archive,
      'build-alice-import-trigger',
    ]);
    expect(fetched.slice(before)).toEqual([]);
    // the engine runs the trigger in a build on the image: the fetch the refusals above kept from happening
    const dir = join(cluster.dir, 'trigger-context');
    mkdirSync(dir);
    writeFileSync(join(dir, 'Dockerfile'), 'FROM build-alice-import-trigger\nLABEL note=triggered\n');
    await ok('alice', ['build', '-q', dir]);
    expect(fetched.slice(before)).toEqual(['/allowed/import.txt']);
  });

  it('judges the ONBUILD ADD of a base image that came without the manager (as from a registry) when a build runs it', async () => {
    // made on each engine directly, as a pull from a registry would bring it: nothing judged it then
    for (const engine of cluster.testbed.engines) {
      await execFileAsync('docker', [
        '-H',
        `unix://${engine.socket}`,
        'import',
        '--change',
        `ONBUILD ADD ${SERVED}/denied/registry /r`,
        archive,
        'build-registry-trigger',
      ]);
    }
    const dir = join(cluster.dir, 'registry-trigger-context');
    mkdirSync(dir);
    writeFileSync(join(dir, 'Dockerfile'), 'FROM build-registry-trigger\nLABEL note=on-a-registry-image\n');
    // the manager learns of an image made behind its back from the engines' events: a moment later
    for (let attempt = 0; attempt < 40; attempt++) {
      const listed = await cluster.as('alice', ['images', '-q', 'build-registry-trigger']);
      if (listed.stdout.trim() !== '') break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const before = fetched.length;
    const refused = await cluster.as('alice', ['build', '-q', dir]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(
      forbids('baseline', `ADD: the engine would fetch ${SERVED}/denied/registry: it is outside ${SERVED}/allowed/`),
    );
    expect(fetched.slice(before)).toEqual([]);
  });

  it("keeps a base image's ONBUILD COPY --from off bob's image: the build pulls its bases, and bob's file never reaches alice's image", async () => {
    const secret = join(cluster.dir, 'bob-secret');
    mkdirSync(secret);
    writeFileSync(join(secret, 'secret.txt'), 'bob only\n');
    const secretTar = join(cluster.dir, 'bob-secret.tar');
    await execFileAsync('tar', ['-cf', secretTar, '-C', secret, '.']);
    await ok('bob', ['import', secretTar, 'build-bob-secret']);
    await ok('alice', [
      'import',
      '--change',
      'ONBUILD COPY --from=build-bob-secret /secret.txt /stolen.txt',
      archive,
      'build-alice-copier',
    ]);
    const dir = join(cluster.dir, 'copier-context');
    mkdirSync(dir);
    writeFileSync(join(dir, 'Dockerfile'), 'FROM build-alice-copier\nLABEL note=copier\n');
    // pulled, the bases are the registry's: these engines reach none, so the build fails rather than copy
    const built = await cluster.as('alice', ['build', '-t', 'build-alice-copied', dir]);
    expect(built.code, built.stderr).not.toBe(0);
    const listed = await cluster.as('alice', ['images', '-q', 'build-alice-copied']);
    expect(listed.stdout.trim()).toBe('');
  });
});

itJudgedEveryEngineRequest('access-build', () => cluster);
