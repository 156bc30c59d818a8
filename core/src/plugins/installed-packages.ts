import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { readPackageJson } from './locate.js';
import { closestName } from '../util/did-you-mean.js';

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
export function installedPluginPackages(dir: string): string[] {
  const found = new Set<string>();
  for (let current = dir; ; current = dirname(current)) {
    for (const name of pluginPackagesIn(join(current, 'node_modules'))) found.add(name);
    if (dirname(current) === current) break;
  }
  return [...found];
}

/** The name a config lists a package by: `swarm-plugin-gpu` → `gpu`, `@swarm/filter-health` → `health`, `@acme/swarm-plugin-x` → `@acme/x`. */
export function shortPluginName(packageName: string): string {
  if (packageName.startsWith('@swarm/')) return packageName.slice('@swarm/'.length).replace(/^(filter|strategy|driver|discovery)-/, '');
  if (packageName.startsWith('swarm-plugin-')) return packageName.slice('swarm-plugin-'.length);
  return packageName.replace(/^(@[^/]+\/)swarm-plugin-/, '$1');
}

/**
 * The installed plugin a mistyped name most likely meant (`gup` → `gpu`, swarm-plugin-gpu): the
 * author has it right there, so it is a better hint than an `npm install` of a name nobody published.
 */
export function closeInstalledPlugin(spec: string, dir: string): { name: string; packageName: string } | undefined {
  const byShort = new Map<string, string>();
  for (const packageName of installedPluginPackages(dir)) {
    if (!byShort.has(shortPluginName(packageName))) byShort.set(shortPluginName(packageName), packageName);
    if (!byShort.has(packageName)) byShort.set(packageName, packageName);
  }
  const name = closestName(spec, [...byShort.keys()]);
  return name === undefined ? undefined : { name, packageName: byShort.get(name)! };
}
