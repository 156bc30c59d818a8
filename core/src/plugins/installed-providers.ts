import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { importPlugin, resolvePlugin } from './load.js';
import { readPackageJson } from './locate.js';
import { providedKinds } from './stage.js';

/** Plugin packages (`"swarm": { "plugin": true }`) in one node_modules folder, scoped ones included. */
function pluginPackagesIn(modules: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(modules);
  } catch {
    return [];
  }
  const names = entries.flatMap((entry) => {
    if (!entry.startsWith('@')) return [entry];
    try {
      return readdirSync(join(modules, entry)).map((inner) => `${entry}/${inner}`);
    } catch {
      return [];
    }
  });
  return names.filter((name) => readPackageJson(join(modules, name))?.swarm?.plugin === true);
}

/** Plugin packages `dir` can import: its node_modules and its ancestors', as Node resolves them. */
function installedPluginPackages(dir: string): string[] {
  const found = new Set<string>();
  for (let current = dir; ; current = dirname(current)) {
    for (const name of pluginPackagesIn(join(current, 'node_modules'))) found.add(name);
    if (dirname(current) === current) break;
  }
  return [...found];
}

/**
 * What the installed plugin packages that the config does not list provide (`filter gpu` → its
 * package): an unknown name is often a plugin the config forgot to list. Read only when a name is
 * unknown, once for all of them.
 */
export async function unlistedProviders(dir: string, loaded: ReadonlySet<string>): Promise<Map<string, string>> {
  const providers = new Map<string, string>();
  for (const packageName of installedPluginPackages(dir)) {
    if (loaded.has(packageName)) continue;
    try {
      const plugin = await importPlugin(resolvePlugin(packageName, dir));
      for (const provided of providedKinds(plugin).names) if (!providers.has(provided)) providers.set(provided, packageName);
    } catch {
      // a package that does not load provides nothing
    }
  }
  return providers;
}
