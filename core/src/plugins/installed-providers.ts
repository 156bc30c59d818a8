import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ExtensionKind } from '@swarm/plugin-sdk';
import { kindLabel } from './extension-kinds.js';
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
 * The installed but unlisted plugin package that provides `name` as a `kind`, if any: an unknown
 * name is often a plugin the config forgot to list. Only read when a name is unknown.
 */
export async function unlistedProviderOf(
  kind: ExtensionKind,
  name: string,
  dir: string,
  loaded: ReadonlySet<string>,
): Promise<string | undefined> {
  const wanted = `${kindLabel(kind)} ${name}`;
  for (const packageName of installedPluginPackages(dir)) {
    if (loaded.has(packageName)) continue;
    try {
      const plugin = await importPlugin(resolvePlugin(packageName, dir));
      if (providedKinds(plugin).names.includes(wanted)) return packageName;
    } catch {
      // a package that does not load cannot be the answer
    }
  }
  return undefined;
}
