import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { archiveImages } from '../dist/access/image-archive.js';

/*
 * A `docker load` archive read as dockerd reads it (unpacked, the last entry of a path winning,
 * manifest.json naming each config), with archives GNU tar writes: the forms a tenant can send.
 */

const root = mkdtempSync(join(tmpdir(), 'swarm-image-archive-'));
let counter = 0;

afterAll(() => rmSync(root, { recursive: true, force: true }));

function config(labels: Record<string, string>): string {
  return JSON.stringify({ architecture: 'amd64', config: { Labels: labels }, rootfs: { type: 'layers', diff_ids: [] } });
}

/** A directory with `files` (a `-> target` value makes a symlink), tarred with `tar` flags. */
function archive(files: Record<string, string>, flags: string[] = [], order?: string[]): Buffer {
  const dir = join(root, `a${++counter}`);
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    if (content.startsWith('-> ')) symlinkSync(content.slice(3), join(dir, name));
    else writeFileSync(join(dir, name), content);
  }
  const out = join(root, `a${counter}.tar`);
  execFileSync('tar', ['-cf', out, ...flags, '-C', dir, ...(order ?? Object.keys(files))]);
  return readFileSync(out);
}

const TEAM_A = { 'com.docker.swarm.owner': 'alice', 'com.docker.swarm.team': 'team-a' };

describe('archiveImages', () => {
  it('reads the tags and config labels of each image the manifest names', () => {
    const tar = archive({
      'manifest.json': JSON.stringify([
        { Config: 'aaa.json', RepoTags: ['app:1', 'app:latest'], Layers: [] },
        { Config: 'bbb.json', RepoTags: null, Layers: [] },
      ]),
      'aaa.json': config(TEAM_A),
      'bbb.json': config({}),
    });
    expect(archiveImages(tar)).toEqual([
      { repoTags: ['app:1', 'app:latest'], labels: TEAM_A },
      { repoTags: [], labels: {} },
    ]);
  });

  it('reads a gzipped archive, and answers undefined for the compressions it does not read', () => {
    const tar = archive({ 'manifest.json': JSON.stringify([{ Config: 'c.json', RepoTags: ['x:1'] }]), 'c.json': config(TEAM_A) });
    const file = join(root, 'z.tar');
    writeFileSync(file, tar);
    execFileSync('gzip', ['-kf', file]);
    execFileSync('bzip2', ['-kf', file]);
    expect(archiveImages(readFileSync(`${file}.gz`))?.[0]?.labels).toEqual(TEAM_A);
    expect(archiveImages(readFileSync(`${file}.bz2`))).toBeUndefined();
  });

  it('takes the last entry of a path, as unpacking does', () => {
    const dir = join(root, 'twice');
    mkdirSync(join(dir, 'first'), { recursive: true });
    mkdirSync(join(dir, 'second'), { recursive: true });
    writeFileSync(join(dir, 'first', 'c.json'), config(TEAM_A));
    writeFileSync(join(dir, 'second', 'c.json'), config({ 'com.docker.swarm.team': 'team-b' }));
    writeFileSync(join(dir, 'manifest.json'), JSON.stringify([{ Config: 'c.json', RepoTags: ['x:1'] }]));
    const out = join(root, 'twice.tar');
    execFileSync('tar', ['-cf', out, '-C', dir, 'manifest.json']);
    execFileSync('tar', ['-rf', out, '-C', join(dir, 'first'), 'c.json']);
    execFileSync('tar', ['-rf', out, '-C', join(dir, 'second'), 'c.json']);
    expect(archiveImages(readFileSync(out))?.[0]?.labels).toEqual({ 'com.docker.swarm.team': 'team-b' });
  });

  it('finds files under long paths (GNU and pax headers) and ./-prefixed names', () => {
    const long = `${'d'.repeat(120)}/c.json`;
    const files = { 'manifest.json': JSON.stringify([{ Config: long, RepoTags: ['x:1'] }]), [long]: config(TEAM_A) };
    for (const format of ['--format=gnu', '--format=pax', '--format=ustar']) {
      expect(archiveImages(archive(files, [format], ['./manifest.json', `./${long}`]))?.[0]?.labels).toEqual(TEAM_A);
    }
  });

  it('answers undefined for what it cannot read as dockerd would: no manifest, a linked manifest or config, a missing config', () => {
    const manifest = JSON.stringify([{ Config: 'c.json', RepoTags: ['x:1'] }]);
    expect(archiveImages(archive({ repositories: '{}', 'c.json': config(TEAM_A) }))).toBeUndefined();
    expect(archiveImages(archive({ 'real.json': manifest, 'manifest.json': '-> real.json', 'c.json': config({}) }))).toBeUndefined();
    expect(archiveImages(archive({ 'manifest.json': manifest, 'other.json': config({}), 'c.json': '-> other.json' }))).toBeUndefined();
    expect(archiveImages(archive({ 'manifest.json': manifest }))).toBeUndefined();
    expect(archiveImages(Buffer.from('not a tar at all'))).toBeUndefined();
  });
});
