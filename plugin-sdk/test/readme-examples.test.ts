import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

// Every code block of plugin-sdk/README.md marked `file=...` is written into a package inside the
// repository (so `@swarm/plugin-sdk` resolves to this build), compiled with tsc and run.
const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const README = join(ROOT, 'plugin-sdk', 'README.md');
const WORK = join(ROOT, 'test', '.artifacts', 'sdk-readme');

function blocks(): Map<string, string> {
  const files = new Map<string, string>();
  for (const match of readFileSync(README, 'utf8').matchAll(/^```(?:ts|json) file=(\S+)\n([\s\S]*?)^```$/gm))
    files.set(match[1]!, match[2]!);
  return files;
}

describe('plugin-sdk/README.md', () => {
  it('holds the package files and one example of each extension kind', () => {
    expect([...blocks().keys()].sort()).toEqual([
      'package.json',
      'src/examples.check.ts',
      'src/fewest-containers.ts',
      'src/gpu-filter.ts',
      'src/in-memory-cluster.ts',
      'src/index.ts',
      'src/static-discovery.ts',
      'tsconfig.json',
    ]);
  });

  it('compiles as written, and its plugin registers what it says and passes the test kit', async () => {
    rmSync(WORK, { recursive: true, force: true });
    for (const [file, text] of blocks()) {
      mkdirSync(dirname(join(WORK, file)), { recursive: true });
      writeFileSync(join(WORK, file), text);
    }
    await run(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(WORK, 'tsconfig.json')]).catch(
      (error: { stdout?: string }) => {
        throw new Error(`tsc: ${error.stdout}`);
      },
    );
    const examples = (await import(pathToFileURL(join(WORK, 'dist', 'examples.check.js')).href)) as { check(): Promise<string[]> };
    expect(await examples.check()).toEqual(['gpu', 'fewest-containers', 'static', 'in-memory']);
    const discovery = (await import(pathToFileURL(join(WORK, 'dist', 'static-discovery.js')).href)) as {
      StaticDiscovery: new () => { open(uri: string): { watch(on: (entries: unknown[]) => void): unknown } };
    };
    let seen: unknown[] = [];
    new discovery.StaticDiscovery().open('10.0.0.1:2375,10.0.0.2:2375').watch((entries) => (seen = entries));
    expect(seen).toEqual([
      { host: '10.0.0.1', port: 2375, addr: '10.0.0.1:2375' },
      { host: '10.0.0.2', port: 2375, addr: '10.0.0.2:2375' },
    ]);
    expect(() => new discovery.StaticDiscovery().open('nope')).toThrow('static://: "nope" is not host:port');
  }, 60_000);
});
