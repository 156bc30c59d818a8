import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { buildContext, contextDockerfile } from '../dist/api/build-context.js';
import { buildFetches } from '../dist/api/build-fetches.js';
import { readBuildQuery } from '../dist/api/build-query.js';
import { keptBody } from '../dist/http/buffered-body.js';

/*
 * The Dockerfile the engine would read from a classic build's context, or why it cannot be read
 * here as the engine reads it: a Dockerfile the manager judged must be the one the engine builds.
 */

/** A cluster of no engines: these Dockerfiles build FROM scratch, whose triggers no engine holds. */
const noEngines = { api: { cluster: { nodes: () => [] } } } as unknown as Parameters<typeof buildFetches>[0];

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

/** A request whose body streams `bytes` in small chunks, as a client's upload arrives. */
function upload(bytes: Buffer): IncomingMessage {
  const chunks = Array.from({ length: Math.ceil(bytes.length / 1000) }, (_, i) => bytes.subarray(i * 1000, (i + 1) * 1000));
  return Readable.from(chunks) as unknown as IncomingMessage;
}

describe('buildFetches', () => {
  it("lists remote's URL, then the Dockerfile's, reading the context once and keeping its bytes for the engine", async () => {
    const tar = context(
      { Dockerfile: 'FROM scratch\nARG U\nADD ${U}/x /x\nADD http://127.0.0.1:2375/version /v\n', 'data.bin': 'x'.repeat(5000) },
      ['-z'],
    );
    const req = upload(tar);
    const query = new URLSearchParams({ buildargs: JSON.stringify({ U: 'http://169.254.169.254', unused: null }) });
    expect(await buildFetches(noEngines, req, query, readBuildQuery(query), true)).toEqual([
      { from: 'ADD', url: 'http://169.254.169.254/x' },
      { from: 'ADD', url: 'http://127.0.0.1:2375/version' },
    ]);
    expect(keptBody(req)?.raw.equals(tar)).toBe(true);
    // a second reader (a scoped caller's bases) gets the kept bytes, not a drained stream
    expect((await buildContext(req)).equals(tar)).toBe(true);
  });

  it('lists a Dockerfile it cannot read as unresolved, with why', async () => {
    const fetches = await buildFetches(
      noEngines,
      upload(context({ Dockerfile: 'FROM scratch\n' }, ['-J'])),
      query(),
      readBuildQuery(query()),
      true,
    );
    expect(fetches).toEqual([
      {
        from: 'ADD',
        url: '',
        unresolved: 'the Dockerfile cannot be read as the engine reads it: the context is not a tar or gzipped tar that can be read here',
      },
    ]);
  });

  it('reads nothing without an admission controller, for a remote context or a BuildKit build', async () => {
    const dockerfile = context({ Dockerfile: 'FROM scratch\nADD http://a/ /a\n' });
    for (const [parameters, admitting] of [
      [{}, false],
      [{ remote: 'https://git.example.com/team-a/ctx.git' }, true],
      [{ version: '2', remote: 'client-session' }, true],
    ] as const) {
      const req = upload(dockerfile);
      const asked = new URLSearchParams(parameters);
      const fetches = await buildFetches(noEngines, req, asked, readBuildQuery(asked), admitting);
      expect(fetches).toEqual(
        'remote' in parameters && parameters.remote.startsWith('https') ? [{ from: 'remote', url: parameters.remote }] : [],
      );
      expect(keptBody(req)).toBeUndefined();
    }
  });
});
