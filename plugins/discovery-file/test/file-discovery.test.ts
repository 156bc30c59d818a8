import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ErrorCodes, isSwarmError } from '@swarm/plugin-sdk';
import { discoveryConformance } from '@swarm/plugin-sdk/testing';
import { FileDiscoveryBackend, parseFileContent } from '@swarm/discovery-file';

const dir = mkdtempSync(join(tmpdir(), 'swarm-file-unit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('file:// discovery', () => {
  it('reads one address per line, skipping comments and blank lines, expanding ranges', () => {
    const entries = parseFileContent('# engines\n  127.0.0.2:2375  \n\n10.0.0.[1:2]:2375\n# 1.1.1.1:1\n127.0.0.2:2375\n', 'f');
    expect(entries.map((entry) => entry.addr)).toEqual(['127.0.0.2:2375', '10.0.0.1:2375', '10.0.0.2:2375']);
  });

  it("reads Swarm classic's cluster files: inline comments, indented comments, tabs, CRLF line ends", () => {
    const content = [
      '# cluster of three',
      '127.0.0.3:2375   # node2',
      '\t127.0.0.4:2375\t#node3 # more',
      '   # an indented comment',
      '10.0.0.[1:2]:2375 # a range',
      '127.0.0.5:2375\r',
      '#127.0.0.9:2375',
      '',
    ].join('\n');
    expect(parseFileContent(content, 'f').map((entry) => entry.addr)).toEqual([
      '127.0.0.3:2375',
      '127.0.0.4:2375',
      '10.0.0.1:2375',
      '10.0.0.2:2375',
      '127.0.0.5:2375',
    ]);
    expect(parseFileContent('# nothing yet\n\n   \n', 'f')).toEqual([]);
  });

  it('names the file and line of a malformed entry', () => {
    expect(() => parseFileContent('127.0.0.2:2375\nnot-an-address # typo\n', '/etc/swarm/cluster')).toThrow(
      '/etc/swarm/cluster line 2: invalid discovery entry "not-an-address": expected host:port (for example 127.0.0.2:2375)',
    );
  });

  it('re-reads the file every heartbeat and reports changes', async () => {
    const file = join(dir, 'cluster');
    writeFileSync(file, 'a:1\n');
    const discovery = new FileDiscoveryBackend().open(file, { heartbeat: 0.05, ttl: 20, options: {} });
    const seen: string[][] = [];
    const watcher = discovery.watch(
      (entries) => seen.push(entries.map((entry) => entry.addr)),
      () => undefined,
    );
    await new Promise((resolve) => setTimeout(resolve, 120));
    writeFileSync(file, 'a:1\nb:2\n');
    await new Promise((resolve) => setTimeout(resolve, 200));
    watcher.stop();
    expect(seen).toEqual([['a:1'], ['a:1', 'b:2']]);
  });

  it('reports a missing file as DISCOVERY_FAILED through onError', async () => {
    const discovery = new FileDiscoveryBackend().open(join(dir, 'missing'), { heartbeat: 1, ttl: 20, options: {} });
    const error = await new Promise<Error>((resolve) => {
      const watcher = discovery.watch(
        () => undefined,
        (failure) => {
          watcher.stop();
          resolve(failure);
        },
      );
    });
    expect(isSwarmError(error, ErrorCodes.DISCOVERY_FAILED)).toBe(true);
    expect(error.message).toMatch(/^cannot read discovery file .*missing: ENOENT/);
  });

  it('refuses an empty path', () => {
    expect(() => new FileDiscoveryBackend().open('', { heartbeat: 1, ttl: 20, options: {} })).toThrow('file discovery needs a path');
  });
});

describe('file:// against the SDK discovery conformance', () => {
  const cluster = join(dir, 'conformance-cluster');
  writeFileSync(cluster, '# two engines\n127.0.0.2:2375   # node1\n127.0.0.3:2375\n');
  discoveryConformance(
    new FileDiscoveryBackend(),
    {
      uri: cluster,
      entries: [
        { host: '127.0.0.2', port: 2375, addr: '127.0.0.2:2375' },
        { host: '127.0.0.3', port: 2375, addr: '127.0.0.3:2375' },
      ],
      invalidUris: [''],
    },
    { it },
  );
});
