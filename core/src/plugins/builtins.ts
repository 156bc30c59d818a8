import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LoadedPlugin } from './loaded-plugin.js';
import { importPlugin } from './load.js';
import { locatePackage } from './locate.js';

const SCOPE = '@swarm';

/** A built-in package that could not be loaded: listed by `swarm plugins`, never fatal. */
export interface BuiltinFailure {
  readonly packageName: string;
  readonly dir: string;
  readonly error: Error;
}

export interface Builtins {
  readonly plugins: readonly LoadedPlugin[];
  readonly failures: readonly BuiltinFailure[];
}

function coreDir(): string {
  return join(dirname(fileURLToPath(import.meta.url)), '..', '..');
}

/** The `@swarm/*` packages next to core that declare `"swarm": { "plugin": true }`. */
export function builtinPackageNames(): string[] {
  let dir = coreDir();
  for (;;) {
    const scopeDir = join(dir, 'node_modules', SCOPE);
    if (existsSync(scopeDir)) {
      return readdirSync(scopeDir)
        .map((name) => `${SCOPE}/${name}`)
        .filter((name) => locatePackage(name, dir)?.packageJson?.swarm?.plugin === true)
        .sort();
    }
    const parent = dirname(dir);
    if (parent === dir) return [];
    dir = parent;
  }
}

let cached: Promise<Builtins> | undefined;

/**
 * Import every built-in plugin once per process, in parallel. A built-in that fails (not built
 * yet, broken) is reported, not thrown: the others stay usable.
 */
export function loadBuiltins(): Promise<Builtins> {
  cached ??= (async () => {
    const from = coreDir();
    const results = await Promise.all(
      builtinPackageNames().map(async (packageName) => {
        const located = locatePackage(packageName, from)!;
        try {
          return { plugin: await importPlugin({ ...located, spec: packageName, packageName }, true) };
        } catch (error) {
          return { failure: { packageName, dir: located.dir, error: error as Error } };
        }
      }),
    );
    return {
      plugins: results.flatMap((result) => (result.plugin ? [result.plugin] : [])),
      failures: results.flatMap((result) => (result.failure ? [result.failure] : [])),
    };
  })();
  return cached;
}
