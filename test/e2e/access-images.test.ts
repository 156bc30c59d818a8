import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRegistry, type CliResult, type Registry } from './api-support.js';
import { startManager, type InfoAnswer } from '../harness/manager.js';
import { dockerAs, httpsCall, managerTlsArgs, startAccessCluster, type AccessCluster, type Person } from './access-support.js';
import { itJudgedEveryEngineRequest } from './access-invariant.js';

/*
 * Issue #42 item 4 with the real docker CLI: an image a team makes through the manager (commit,
 * build) is that team's. alice commits a container started with a secret in its env; bob (another
 * team) gets for it exactly what he gets for an image that does not exist (inspect, history, save,
 * tag, push, rmi, run, the image list), cannot move its name, and the admin sees it. The pulled
 * (shared) busybox:local stays usable by both, and bob cannot remove it while alice's container
 * uses it.
 *
 * Engines 140-141 (http-front owns 180-181); manager on 28600, a local registry on 28601, a second manager on 28602.
 */

const PORT = 28600;
const REGISTRY_PORT = 28601;
const FRESH_PORT = 28602;
const SECRET_IMAGE = 'alice-secret:1';
const NOBODY_IMAGE = 'nobody-image:1';
const BOB_RUN = ['--user', '1000', '--security-opt', 'no-new-privileges', '-m', '64m', '--cpus', '0.5'];
const OWNERSHIP = '{{index .Config.Labels "com.docker.swarm.owner"}} {{index .Config.Labels "com.docker.swarm.team"}}';

let cluster: AccessCluster;
let registry: Registry;
let secretId = '';
let pushName = '';
let since = 0;

async function ok(person: Person, args: string[]): Promise<string> {
  const result = await cluster.as(person, args);
  if (result.code !== 0) throw new Error(`docker ${args.join(' ')} as ${person} failed (${result.code}): ${result.stderr}`);
  return result.stdout.trim();
}

/** What the CLI printed, with the image's name put back to a placeholder, so two answers compare. */
function shown(result: CliResult, name: string): { code: number; stdout: string; stderr: string } {
  const neutral = (text: string) => text.split(name).join('<image>').trim();
  return { code: result.code, stdout: neutral(result.stdout), stderr: neutral(result.stderr) };
}

/**
 * bob's command on alice's image against the same command on a name nobody has: the same exit
 * code and output, so nothing tells him it exists.
 */
async function likeNothing(args: (image: string) => string[], image = SECRET_IMAGE, nobody = NOBODY_IMAGE): Promise<CliResult> {
  const [theirs, nothing] = await Promise.all([cluster.as('bob', args(image)), cluster.as('bob', args(nobody))]);
  expect(theirs.code).not.toBe(0);
  expect(shown(theirs, image)).toEqual(shown(nothing, nobody));
  return theirs;
}

beforeAll(async () => {
  [cluster, registry] = await Promise.all([
    startAccessCluster({ firstEngine: 140, engines: 2, port: PORT, recordEngines: true }),
    startRegistry(REGISTRY_PORT),
  ]);
  pushName = `${registry.addr}/alice-secret:1`;
  await Promise.all([
    ok('alice', ['run', '-d', '--name', 'img-alice', '-e', 'SECRET=x', 'busybox:local', 'sleep', '600']),
    ok('bob', ['run', '-d', '--name', 'img-bob', ...BOB_RUN, 'busybox:local', 'sleep', '600']),
  ]);
  since = Math.floor(Date.now() / 1000) - 1;
  secretId = await ok('alice', ['commit', 'img-alice', SECRET_IMAGE]);
  await ok('alice', ['tag', SECRET_IMAGE, pushName]);
}, 180_000);

afterAll(async () => {
  await Promise.all([cluster?.stop(), registry?.stop()]);
});

describe('an image alice commits is team a’s', () => {
  it('carries her owner and team labels and the secret, as the admin and alice see it', async () => {
    expect(await ok('admin', ['image', 'inspect', '-f', OWNERSHIP, SECRET_IMAGE])).toBe('alice team-a');
    expect(await ok('alice', ['image', 'inspect', '-f', '{{.Config.Env}}', SECRET_IMAGE])).toContain('SECRET=x');
    expect(await ok('amy', ['image', 'history', '-q', SECRET_IMAGE])).toContain(secretId.replace('sha256:', '').slice(0, 12));
  });

  it('is no such image to bob: inspect (by name and by ID), history, tag, rmi', async () => {
    expect((await likeNothing((image) => ['image', 'inspect', image])).stderr).toContain('No such image');
    expect((await likeNothing((image) => ['image', 'inspect', image], secretId, `sha256:${'0'.repeat(64)}`)).stderr).toContain(
      'No such image',
    );
    expect((await likeNothing((image) => ['image', 'history', image])).stderr).toContain('No such image');
    expect((await likeNothing((image) => ['tag', image, 'bob-copy:1'])).stderr).toContain('No such image');
    expect((await likeNothing((image) => ['rmi', image])).stderr).toContain('No such image');
    // the CLI's rmi -f passes over a name that does not exist: so it must over hers
    const [forced, forcedNothing] = await Promise.all([
      cluster.as('bob', ['rmi', '-f', SECRET_IMAGE]),
      cluster.as('bob', ['rmi', '-f', NOBODY_IMAGE]),
    ]);
    expect(shown(forced, SECRET_IMAGE)).toEqual(shown(forcedNothing, NOBODY_IMAGE));
    // and nothing happened to it
    expect(await ok('admin', ['image', 'inspect', '-f', '{{.Id}}', SECRET_IMAGE])).toBe(secretId);
  });

  it('is no such image to bob for save and push', async () => {
    const out = join(cluster.dir, 'bob-save.tar');
    await likeNothing((image) => ['save', '-o', out, image]);
    await likeNothing((image) => ['push', image], pushName, `${registry.addr}/nobody-image:1`);
  });

  it('cannot be run by bob (its env would be his container’s)', async () => {
    const run = await likeNothing((image) => ['run', '--rm', '--pull', 'never', ...BOB_RUN, image, 'env']);
    expect(run.stdout).not.toContain('SECRET');
    expect(run.stderr).toContain('No such image');
  });

  it('is not in bob’s image list, filtered or not, nor in /images/json; the admin’s lists it', async () => {
    const bobIds = await ok('bob', ['images', '-q', '--no-trunc']);
    expect(bobIds).not.toContain(secretId);
    expect(await ok('bob', ['images', '--filter', 'reference=alice-secret', '--format', '{{.ID}}'])).toBe('');
    const raw = await cluster.call('bob', 'GET', '/v1.41/images/json?all=1');
    expect(raw.status).toBe(200);
    expect(raw.text).not.toContain(secretId);
    expect(raw.text).not.toContain('alice-secret');
    const [inspected, nothing] = await Promise.all([
      cluster.call('bob', 'GET', `/v1.41/images/${secretId}/json`),
      cluster.call('bob', 'GET', `/v1.41/images/sha256:${'0'.repeat(64)}/json`),
    ]);
    expect([inspected.status, nothing.status]).toEqual([404, 404]);
    expect(await ok('bob', ['system', 'df', '-v'])).not.toContain('alice-secret');
    expect(await ok('admin', ['system', 'df', '-v'])).toContain('alice-secret');
    expect(await ok('admin', ['images', '-q', '--no-trunc'])).toContain(secretId);
    expect(await ok('amy', ['images', '-q', '--no-trunc'])).toContain(secretId);
  });

  it('is not in bob’s events (its tag, its push); the admin’s show them', async () => {
    const events = (person: Person) =>
      ok(person, [
        'events',
        '--since',
        String(since),
        '--until',
        String(Math.floor(Date.now() / 1000) + 1),
        '--filter',
        'type=image',
        '--format',
        '{{.Action}} {{.Actor.ID}} {{.Actor.Attributes.name}}',
      ]);
    const [bobs, admins] = await Promise.all([events('bob'), events('admin')]);
    expect(admins).toContain(`tag ${secretId} alice-secret:1`);
    expect(bobs).not.toContain(secretId);
    expect(bobs).not.toContain('alice-secret');
  });

  it('can be pushed by alice to a registry', async () => {
    await ok('alice', ['push', pushName]);
  });
});

describe('ownership is the image’s, not the manager’s memory', () => {
  it('a manager started afresh on the same engines holds it the same', async () => {
    const fresh = await startManager({
      // through the recording proxies: what this manager sends is judged too
      discovery: cluster.discovery,
      port: FRESH_PORT,
      expectNodes: 2,
      args: ['--config', join(cluster.dir, 'swarm.config.json'), ...managerTlsArgs(cluster.dir)],
      readInfo: async () => {
        const answer = await httpsCall(cluster.dir, FRESH_PORT, 'admin', 'GET', '/info').catch(() => undefined);
        return answer?.status === 200 ? (JSON.parse(answer.text) as InfoAnswer) : undefined;
      },
    });
    try {
      const [bobs, amys] = await Promise.all([
        dockerAs(cluster.dir, fresh.host, 'bob', ['image', 'inspect', '-f', '{{.Id}}', SECRET_IMAGE]),
        dockerAs(cluster.dir, fresh.host, 'amy', ['image', 'inspect', '-f', '{{.Id}}', SECRET_IMAGE]),
      ]);
      expect(bobs.code).not.toBe(0);
      expect(bobs.stderr).toContain(`No such image: ${SECRET_IMAGE}`);
      expect(amys.stdout.trim()).toBe(secretId);
    } finally {
      await fresh.stop();
    }
  });
});

describe('image names are not another team’s to move', () => {
  it('bob can neither tag nor commit onto alice’s name; it still names her image', async () => {
    const tagged = await cluster.as('bob', ['tag', 'busybox:local', SECRET_IMAGE]);
    expect(tagged.code).not.toBe(0);
    expect(tagged.stderr).toContain(`Conflict: the image name "${SECRET_IMAGE}" is already in use`);
    const committed = await cluster.as('bob', ['commit', 'img-bob', SECRET_IMAGE]);
    expect(committed.code).not.toBe(0);
    expect(committed.stderr).toContain('is already in use');
    expect(await ok('admin', ['image', 'inspect', '-f', '{{.Id}}', SECRET_IMAGE])).toBe(secretId);
  });

  it('a team cannot put its own image under a shared image’s name', async () => {
    const bobImage = await ok('bob', ['commit', 'img-bob', 'bob-own:1']);
    expect(await ok('bob', ['image', 'inspect', '-f', OWNERSHIP, 'bob-own:1'])).toBe('bob team-b');
    const taken = await cluster.as('bob', ['tag', 'bob-own:1', 'busybox:local']);
    expect(taken.stderr).toContain('Conflict: the image name "busybox:local" is already in use');
    expect(await ok('alice', ['image', 'inspect', '-f', '{{.Id}}', 'busybox:local'])).not.toBe(bobImage);
  });
});

describe('a build is its maker’s whatever its Dockerfile says', () => {
  it('alice’s build with a LABEL naming team b is team a’s', async () => {
    const context = join(cluster.dir, 'build-context');
    mkdirSync(context, { recursive: true });
    writeFileSync(
      join(context, 'Dockerfile'),
      'FROM busybox:local\nLABEL com.docker.swarm.owner=bob com.docker.swarm.team=team-b\nENV TOKEN=y\n',
    );
    await ok('alice', ['build', '-q', '-t', 'alice-built:1', '--label', 'com.docker.swarm.team=team-b', context]);
    expect(await ok('admin', ['image', 'inspect', '-f', OWNERSHIP, 'alice-built:1'])).toBe('alice team-a');
    await likeNothing((image) => ['image', 'inspect', image], 'alice-built:1');
  });
});

describe('a build builds only on images its maker may see', () => {
  function context(name: string, dockerfile: string): string {
    const dir = join(cluster.dir, name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'Dockerfile'), dockerfile);
    return dir;
  }

  it('bob’s FROM alice’s image goes as a FROM of an image nobody has: no secret', async () => {
    const build = await likeNothing((image) => [
      'build',
      '--no-cache',
      context(`from-${image.replace(/[^a-z0-9]/g, '-')}`, `FROM ${image}\nRUN env\n`),
    ]);
    expect(build.stdout + build.stderr).not.toContain('SECRET=x');
  });

  it('bob builds on the shared busybox:local as before', async () => {
    const dir = context('from-shared', 'FROM busybox:local\nRUN echo built-on-shared\n');
    expect(await ok('bob', ['build', '--no-cache', '-t', 'bob-built:1', dir])).toContain('built-on-shared');
  });
});

describe('an import is its maker’s', () => {
  it('alice’s import (with her own --change) is team a’s, and no such image to bob', async () => {
    const source = join(cluster.dir, 'import-root');
    mkdirSync(source, { recursive: true });
    writeFileSync(join(source, 'hello.txt'), 'hello\n');
    const archive = join(cluster.dir, 'import.tar');
    execFileSync('tar', ['-cf', archive, '-C', source, '.']);
    await ok('alice', ['import', '--change', 'ENV TOKEN=z', '--change', 'LABEL com.docker.swarm.team=team-b', archive, 'alice-imported:1']);
    expect(await ok('admin', ['image', 'inspect', '-f', OWNERSHIP, 'alice-imported:1'])).toBe('alice team-a');
    expect(await ok('alice', ['image', 'inspect', '-f', '{{.Config.Env}}', 'alice-imported:1'])).toContain('TOKEN=z');
    await likeNothing((image) => ['image', 'inspect', image], 'alice-imported:1');
  });

  it('a change that runs on into the owner labels’ line is refused, for an import as for a commit', async () => {
    const archive = join(cluster.dir, 'import.tar');
    const imported = await cluster.as('alice', ['import', '--change', 'LABEL a=b \\', archive, 'alice-continued:1']);
    expect(imported.code).not.toBe(0);
    expect(imported.stderr).toContain('invalid changes: ');
    const committed = await cluster.as('alice', ['commit', '--change', 'LABEL a=b \\', 'img-alice', 'alice-continued:2']);
    expect(committed.code).not.toBe(0);
    expect(committed.stderr).toContain('continues a line past its end');
    expect((await cluster.as('admin', ['image', 'inspect', 'alice-continued:1', 'alice-continued:2'])).code).not.toBe(0);
  });
});

describe('a load brings in only the caller’s team’s images', () => {
  it('amy loads team a’s saved image (plain or gzipped); bob may load neither it nor a shared one', async () => {
    const saved = join(cluster.dir, 'alice-secret.tar');
    const shared = join(cluster.dir, 'busybox.tar');
    await Promise.all([ok('alice', ['save', '-o', saved, SECRET_IMAGE]), ok('admin', ['save', '-o', shared, 'busybox:local'])]);
    execFileSync('gzip', ['-k', saved]);
    expect(await ok('amy', ['load', '-i', saved])).toContain(`Loaded image: ${SECRET_IMAGE}`);
    expect(await ok('amy', ['load', '-i', `${saved}.gz`])).toContain(`Loaded image: ${SECRET_IMAGE}`);
    const theirs = await cluster.as('bob', ['load', '-i', saved]);
    expect(theirs.code).not.toBe(0);
    expect(theirs.stderr).toContain(`load refused: image ${SECRET_IMAGE} carries no owner labels of your team`);
    expect(theirs.stderr).toContain("it would be another team's");
    const everyones = await cluster.as('bob', ['load', '-i', shared]);
    expect(everyones.code).not.toBe(0);
    expect(everyones.stderr).toContain(
      "load refused: image busybox:local carries no owner labels of your team, and a loaded image cannot be given them (it would be every team's)",
    );
    expect(await ok('admin', ['image', 'inspect', '-f', '{{.Id}}', SECRET_IMAGE])).toBe(secretId);
  });
});

describe('pulled images stay shared', () => {
  it('busybox:local is usable by both teams', async () => {
    expect(await ok('alice', ['image', 'inspect', '-f', '{{.Id}}', 'busybox:local'])).toMatch(/^sha256:/);
    expect(await ok('bob', ['image', 'inspect', '-f', '{{.Id}}', 'busybox:local'])).toMatch(/^sha256:/);
    expect(await ok('bob', ['run', '--rm', '--pull', 'never', ...BOB_RUN, 'busybox:local', 'echo', 'hi'])).toBe('hi');
    expect(await ok('bob', ['images', '--format', '{{.Repository}}:{{.Tag}}'])).toContain('busybox:local');
  });

  it('bob cannot remove it while alice’s container uses it, forced or not, and is not told whose; his own tag he can', async () => {
    for (const args of [
      ['rmi', 'busybox:local'],
      ['rmi', '-f', 'busybox:local'],
    ]) {
      const removed = await cluster.as('bob', args);
      expect(removed.code).not.toBe(0);
      expect(removed.stderr).toContain(
        'conflict: unable to remove repository reference "busybox:local" (cannot be forced) - the image is in use by a container',
      );
      expect(removed.stderr).not.toContain('img-alice');
    }
    expect(await ok('alice', ['image', 'inspect', '-f', '{{.Id}}', 'busybox:local'])).toMatch(/^sha256:/);
    // a tag of his own on it is his to take off again: that only untags it
    await ok('bob', ['tag', 'busybox:local', 'bob-base:1']);
    expect(await ok('bob', ['rmi', 'bob-base:1'])).toContain('Untagged: bob-base:1');
    expect(await ok('alice', ['image', 'inspect', '-f', '{{.Id}}', 'busybox:local'])).toMatch(/^sha256:/);
  });
});

itJudgedEveryEngineRequest('access-images', () => cluster);
