import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
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

function listing(dir: string): Set<string> | undefined {
  try {
    return new Set(readdirSync(dir));
  } catch {
    return undefined;
  }
}

/**
 * Finds installed packages by walking `node_modules` folders upwards (Node's lookup) without
 * going through `exports`, so packages that do not export `./package.json` are found too. One
 * finder serves one batch of look-ups: it remembers folder listings, so trying several candidate
 * names costs a few set look-ups instead of file system calls.
 */
export class PackageFinder {
  private readonly listings = new Map<string, Set<string> | undefined>();
  private readonly chains = new Map<string, string[]>();

  locate(name: string, fromDir: string): LocatedPlugin | undefined {
    const slash = name.startsWith('@') ? name.indexOf('/') : -1;
    for (const modules of this.chain(fromDir)) {
      const folder = slash === -1 ? modules : join(modules, name.slice(0, slash));
      const entry = slash === -1 ? name : name.slice(slash + 1);
      if (!this.list(folder)?.has(entry)) continue;
      const candidate = join(modules, name);
      if (!existsSync(join(candidate, 'package.json'))) continue;
      const real = realpathSync(candidate);
      const packageJson = readPackageJson(real);
      return { dir: real, entry: packageEntry(real, packageJson), packageJson };
    }
    return undefined;
  }

  private list(dir: string): Set<string> | undefined {
    if (!this.listings.has(dir)) this.listings.set(dir, listing(dir));
    return this.listings.get(dir);
  }

  /** The existing `node_modules` folders from `fromDir` up to the root. */
  private chain(fromDir: string): string[] {
    const start = resolve(fromDir);
    let chain = this.chains.get(start);
    if (chain) return chain;
    chain = [];
    for (let dir = start; ; dir = dirname(dir)) {
      const modules = join(dir, 'node_modules');
      if (this.list(modules)) chain.push(modules);
      if (dirname(dir) === dir) break;
    }
    this.chains.set(start, chain);
    return chain;
  }
}

/** Find one installed package from `fromDir` (see PackageFinder). */
export function locatePackage(name: string, fromDir: string, finder = new PackageFinder()): LocatedPlugin | undefined {
  return finder.locate(name, fromDir);
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
