import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

export interface PackageJson {
  name?: string;
  version?: string;
  main?: string;
  exports?: unknown;
  swarm?: { plugin?: boolean; kinds?: string[] };
}

/** A plugin package (or file) found on disk. */
export interface LocatedPlugin {
  /** Real folder of the package (symlinks resolved), or the file's folder. */
  readonly dir: string;
  /** Absolute path of the module to import. */
  readonly entry: string;
  readonly packageJson: PackageJson | undefined;
}

export function readPackageJson(dir: string): PackageJson | undefined {
  const file = join(dir, 'package.json');
  if (!existsSync(file)) return undefined;
  return JSON.parse(readFileSync(file, 'utf8')) as PackageJson;
}

/** The `import` entry of a package's `exports["."]` (string, or conditions object). */
function exportsEntry(exports: unknown): string | undefined {
  if (typeof exports === 'string') return exports;
  if (typeof exports !== 'object' || exports === null || Array.isArray(exports)) return undefined;
  const record = exports as Record<string, unknown>;
  const root = '.' in record ? record['.'] : record;
  if (typeof root === 'string') return root;
  if (typeof root !== 'object' || root === null) return undefined;
  const conditions = root as Record<string, unknown>;
  for (const key of ['import', 'node', 'default']) {
    const target = conditions[key];
    const entry = typeof target === 'string' ? target : exportsEntry(target);
    if (entry) return entry;
  }
  return undefined;
}

function packageEntry(dir: string, packageJson: PackageJson | undefined): string {
  const relative = exportsEntry(packageJson?.exports) ?? packageJson?.main ?? 'index.js';
  return resolve(dir, relative);
}

/**
 * Find an installed package by walking `node_modules` folders upwards from `fromDir` (Node's
 * lookup), without going through `exports`, so packages that do not export `./package.json`
 * are found too.
 */
export function locatePackage(name: string, fromDir: string): LocatedPlugin | undefined {
  let dir = resolve(fromDir);
  for (;;) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) {
      const real = realpathSync(candidate);
      const packageJson = readPackageJson(real);
      return { dir: real, entry: packageEntry(real, packageJson), packageJson };
    }
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** A plugin given as a path: a package folder or a module file. */
export function locatePath(spec: string, fromDir: string): LocatedPlugin | undefined {
  const target = resolve(fromDir, spec);
  if (!existsSync(target)) return undefined;
  const real = realpathSync(target);
  if (statSync(real).isDirectory()) {
    const packageJson = readPackageJson(real);
    return { dir: real, entry: packageEntry(real, packageJson), packageJson };
  }
  return { dir: dirname(real), entry: real, packageJson: undefined };
}
