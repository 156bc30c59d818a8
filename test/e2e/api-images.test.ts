import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { docker, dockerOk, sleep, startApiCluster, startRegistry, tempDir, type ApiCluster, type Registry } from './api-support.js';

// Engines 35-37 behind `swarm manage` on port 23402, a local registry on 23410.
let cluster: ApiCluster;
let registry: Registry;
let host: string;
let workdir: { path: string; remove(): void };

beforeAll(async () => {
  [cluster, registry, workdir] = await Promise.all([startApiCluster(35, 3, 23402), startRegistry(23410), tempDir('swarm-e2e-images-')]);
  host = cluster.host;
});

afterAll(async () => {
  await cluster?.stop();
  await registry?.stop();
  workdir?.remove();
});

/** `node => repository:tag` rows of `docker images` for one node. */
async function tagsOn(node: string): Promise<string[]> {
  const out = await dockerOk(host, ['images', '--filter', `node=${node}`, '--format', '{{.Repository}}:{{.Tag}}']);
  return out.trim().split('\n').filter(Boolean).sort();
}

describe('images with the docker CLI', () => {
  it('lists every node image and filters by node', async () => {
    const all = await dockerOk(host, ['images', '--format', '{{.Repository}}:{{.Tag}} {{.ID}}']);
    const rows = all.trim().split('\n');
    expect(rows.filter((row) => row.startsWith('busybox:local '))).toHaveLength(3);
    expect(await tagsOn('node36')).toEqual(['busybox:local']);
  });

  it('tags, inspects, shows history and removes a tag', async () => {
    await dockerOk(host, ['tag', 'busybox:local', 'app:v1']);
    const tagged = await dockerOk(host, ['images', 'app', '--format', '{{.Repository}}:{{.Tag}}']);
    expect(tagged.trim().split('\n').length).toBeGreaterThanOrEqual(1);
    const [inspect] = JSON.parse(await dockerOk(host, ['image', 'inspect', 'app:v1'])) as Array<{ RepoTags: string[] }>;
    expect(inspect!.RepoTags).toContain('app:v1');
    expect(await dockerOk(host, ['history', '-q', 'app:v1'])).toMatch(/[0-9a-f]{12}|<missing>/);
    const removed = await dockerOk(host, ['rmi', 'app:v1']);
    expect(removed).toContain('Untagged: app:v1');
    const missing = await docker(host, ['rmi', 'app:v1']);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('No such image: app:v1');
  });

  it('pushes to a local registry and pulls on every node with per-node progress', async () => {
    const ref = `${registry.addr}/shared:1`;
    await dockerOk(host, ['run', '--name', 'seed', '-e', 'constraint:node==node35', 'busybox:local', 'true']);
    await dockerOk(host, ['commit', 'seed', ref]);
    const pushed = await dockerOk(host, ['push', ref]);
    expect(pushed).toMatch(/1: digest: sha256:[0-9a-f]{64}/);
    await dockerOk(host, ['rmi', ref]);
    const pulled = await dockerOk(host, ['pull', ref]);
    for (const node of ['node35', 'node36', 'node37']) expect(pulled).toContain(`${node}: `);
    for (const node of ['node35', 'node36', 'node37']) expect(await tagsOn(node)).toContain(ref);
    await dockerOk(host, ['rmi', ref]);
    const pulledByRun = await docker(host, ['run', '--rm', ref, 'echo', 'ran after pull']);
    expect(pulledByRun.stderr).toContain(`Unable to find image '${ref}' locally`);
    expect(pulledByRun.stdout).toContain('ran after pull');
    const failed = await docker(host, ['pull', `${registry.addr}/absent:1`]);
    expect(failed.code).not.toBe(0);
    expect(failed.stderr).toMatch(/not found|manifest unknown/);
  });

  it('imports a rootfs tar', async () => {
    const tar = join(process.env.SWARM_TESTBED_DIR ?? '/tmp/swarm-testbed', 'busybox-rootfs.tar');
    const imported = await dockerOk(host, ['import', tar, 'imported:1']);
    expect(imported.trim()).toMatch(/sha256:[0-9a-f]{64}/);
    const rows = await dockerOk(host, ['images', 'imported', '--format', '{{.Repository}}:{{.Tag}}']);
    expect(rows).toContain('imported:1');
  });

  it('builds on the node a constraint build-arg names', async () => {
    writeFileSync(join(workdir.path, 'Dockerfile'), 'FROM busybox:local\nRUN echo built > /built.txt\n');
    const built = await dockerOk(host, ['build', '-t', 'built:1', '--build-arg', 'constraint:node==node37', workdir.path]);
    expect(built).toContain('Successfully tagged built:1');
    expect(built).not.toContain('were not consumed');
    // the manager reads the node's images again on the engine's tag event, a moment after the build's answer
    for (let tries = 0; tries < 20 && !(await tagsOn('node37')).includes('built:1'); tries++) await sleep(250);
    expect(await tagsOn('node37')).toContain('built:1');
    expect(await tagsOn('node35')).not.toContain('built:1');
    const out = await dockerOk(host, ['run', '--rm', '-e', 'affinity:image==built:1', 'built:1', 'cat', '/built.txt']);
    expect(out).toBe('built\n');
  });
  it('saves from the one engine holding the image and loads onto every node', async () => {
    const tar = join(workdir.path, 'saved.tar');
    await dockerOk(host, ['save', '-o', tar, 'built:1']);
    await dockerOk(host, ['rmi', 'built:1']);
    const loaded = await dockerOk(host, ['load', '-i', tar]);
    expect(loaded).toContain('built:1');
    for (const node of ['node35', 'node36', 'node37']) expect(await tagsOn(node)).toContain('built:1');
    const absent = await docker(host, ['save', '-o', join(workdir.path, 'none.tar'), 'built:1', 'no-such-image:1']);
    expect(absent.code).not.toBe(0);
    expect(absent.stderr).toContain('Unable to find an engine containing all images');
  });
});
