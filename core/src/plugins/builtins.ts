import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LoadedPlugin } from './loaded-plugin.js';
import { importPlugin } from './load.js';
import { PackageFinder } from './locate.js';

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
export function builtinPackageNames(finder = new PackageFinder()): string[] {
  let dir = coreDir();
  for (;;) {
    const scopeDir = join(dir, 'node_modules', SCOPE);
    if (existsSync(scopeDir)) {
      return readdirSync(scopeDir)
        .map((name) => `${SCOPE}/${name}`)
        .filter((name) => finder.locate(name, dir)?.packageJson?.swarm?.plugin === true)
        .sort();
    }
    const parent = dirname(dir);
    if (parent === dir) return [];
    dir = parent;
  }
}

type Outcome = { plugin: LoadedPlugin } | { failure: BuiltinFailure };

const imported = new Map<string, Promise<Outcome>>();
let names: string[] | undefined;

function importOnce(packageName: string, finder: PackageFinder): Promise<Outcome> {
  let outcome = imported.get(packageName);
  if (!outcome) {
    const located = finder.locate(packageName, coreDir())!;
    outcome = importPlugin({ ...located, spec: packageName, packageName }, true).then(
      (plugin) => ({ plugin }),
      (error: unknown) => ({ failure: { packageName, dir: located.dir, error: error as Error } }),
    );
    imported.set(packageName, outcome);
  }
  return outcome;
}

/**
 * Import built-in plugins once per process, in parallel: all of them, or only `only` (package
 * names) when the caller knows what it needs, since some pull in heavy clients (gRPC, ZooKeeper).
 * A built-in that fails (not built yet, broken) is reported, not thrown: the others stay usable.
 */
export async function loadBuiltins(only?: readonly string[]): Promise<Builtins> {
  const finder = new PackageFinder();
  names ??= builtinPackageNames(finder);
  const wanted = only ? names.filter((name) => only.includes(name)) : names;
  const results = await Promise.all(wanted.map((name) => importOnce(name, finder)));
  return {
    plugins: results.flatMap((result) => ('plugin' in result ? [result.plugin] : [])),
    failures: results.flatMap((result) => ('failure' in result ? [result.failure] : [])),
  };
}

/** The built-in package that provides `name` by the naming convention (`filter` + `port` → `@swarm/filter-port`), if installed. */
export function conventionalBuiltin(kindPrefix: 'driver' | 'filter' | 'strategy' | 'discovery' | 'web', name: string): string | undefined {
  names ??= builtinPackageNames();
  const packageName = `${SCOPE}/${kindPrefix}-${name}`;
  return names.includes(packageName) ? packageName : undefined;
}
