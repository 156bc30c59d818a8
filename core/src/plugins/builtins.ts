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

type KindPrefix = 'driver' | 'filter' | 'strategy' | 'discovery' | 'web' | 'authn' | 'authz' | 'admission';

/**
 * The built-in plugins as one caller sees them (a deployment being built, a CLI command): the
 * package list read once and each package imported at most once, in parallel. Nothing is kept
 * past the caller, so embedded deployments share no plugin objects.
 */
export class BuiltinPlugins {
  private readonly finder = new PackageFinder();
  private readonly imported = new Map<string, Promise<Outcome>>();
  private names: string[] | undefined;

  packageNames(): string[] {
    this.names ??= builtinPackageNames(this.finder);
    return this.names;
  }

  /**
   * All built-ins, or only `only` (package names) when the caller knows what it needs, since some
   * pull in heavy clients (gRPC, ZooKeeper). A built-in that fails (not built yet, broken) is
   * reported, not thrown: the others stay usable.
   */
  async load(only?: readonly string[]): Promise<Builtins> {
    const names = this.packageNames();
    const wanted = only ? names.filter((name) => only.includes(name)) : names;
    const results = await Promise.all(wanted.map((name) => this.importOnce(name)));
    return {
      plugins: results.flatMap((result) => ('plugin' in result ? [result.plugin] : [])),
      failures: results.flatMap((result) => ('failure' in result ? [result.failure] : [])),
    };
  }

  /** The built-in package that provides `name` by the naming convention (`filter` + `port` → `@swarm/filter-port`), if installed. */
  conventional(kindPrefix: KindPrefix, name: string): string | undefined {
    const packageName = `${SCOPE}/${kindPrefix}-${name}`;
    return this.packageNames().includes(packageName) ? packageName : undefined;
  }

  private importOnce(packageName: string): Promise<Outcome> {
    let outcome = this.imported.get(packageName);
    if (!outcome) {
      const located = this.finder.locate(packageName, coreDir())!;
      outcome = importPlugin({ ...located, spec: packageName, packageName }, true).then(
        (plugin) => ({ plugin }),
        (error: unknown) => ({ failure: { packageName, dir: located.dir, error: error as Error } }),
      );
      this.imported.set(packageName, outcome);
    }
    return outcome;
  }
}

/** Every built-in plugin (or only `only`), as `BuiltinPlugins.load` imports them. */
export function loadBuiltins(only?: readonly string[]): Promise<Builtins> {
  return new BuiltinPlugins().load(only);
}
