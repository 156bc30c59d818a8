import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { contextDockerfile } from '../dist/api/build-context.js';

/*
 * The Dockerfile the engine would read from a classic build's context, or why it cannot be read
 * here as the engine reads it: a Dockerfile the manager judged must be the one the engine builds.
 */

const root = mkdtempSync(join(tmpdir(), 'swarm-build-context-'));
let counter = 0;

afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A context tarred by GNU tar (`-> target` makes a symlink, a Buffer raw bytes). */
function context(files: Record<string, string | Buffer>, flags: string[] = []): Buffer {
  const dir = join(root, `c${++counter}`);
  mkdirSync(dir);
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    if (typeof content === 'string' && content.startsWith('-> ')) symlinkSync(content.slice(3), join(dir, name));
    else writeFileSync(join(dir, name), content);
  }
  const out = join(root, `c${counter}.tar`);
  execFileSync('tar', ['-cf', out, ...flags, '-C', dir, ...Object.keys(files)]);
  return readFileSync(out);
}

const query = (dockerfile?: string) => new URLSearchParams(dockerfile === undefined ? {} : { dockerfile });

describe('contextDockerfile', () => {
  it('reads Dockerfile, then dockerfile when there is no Dockerfile, or the one named', () => {
    expect(contextDockerfile(context({ Dockerfile: 'FROM a\n', dockerfile: 'FROM b\n' }), query())).toEqual({ text: 'FROM a\n' });
    expect(contextDockerfile(context({ dockerfile: 'FROM b\n' }), query())).toEqual({ text: 'FROM b\n' });
    expect(contextDockerfile(context({ 'sub/build.df': 'FROM c\n' }), query('sub/build.df'))).toEqual({ text: 'FROM c\n' });
    expect(contextDockerfile(context({ 'sub/build.df': 'FROM c\n' }, ['-z']), query('./sub/../sub/build.df'))).toEqual({
      text: 'FROM c\n',
    });
  });

  it('does not read past a link: the engine follows it, and never falls back to dockerfile beside one', () => {
    const linked = context({ real: 'ADD http://x/ /x\n', Dockerfile: '-> real', dockerfile: 'FROM scratch\n' });
    expect(contextDockerfile(linked, query())).toEqual({ problem: 'Dockerfile is not a regular file of the context' });
    const throughDirectory = context({ 'real/Dockerfile': 'ADD http://x/ /x\n', sub: '-> real' });
    expect(contextDockerfile(throughDirectory, query('sub/Dockerfile'))).toEqual({
      problem: 'sub/Dockerfile is not a regular file of the context',
    });
  });

  it('says so for a compression it does not read and for text that is not UTF-8', () => {
    expect(contextDockerfile(context({ Dockerfile: 'FROM a\n' }, ['-J']), query())).toEqual({
      problem: 'the context is not a tar or gzipped tar that can be read here',
    });
    expect(contextDockerfile(context({ Dockerfile: Buffer.from([0x46, 0x52, 0x4f, 0x4d, 0x20, 0x85, 0x0a]) }), query())).toEqual({
      problem: 'Dockerfile is not UTF-8 text',
    });
  });
});
