import { pathToFileURL } from 'node:url';
import { type PluginManifest } from '@swarm/plugin-sdk';
import { candidatePackages, isPathSpecifier } from './candidates.js';
import { closeInstalledPlugin } from './installed-packages.js';
import type { LoadedPlugin } from './loaded-plugin.js';
import { locatePath, PackageFinder, type LocatedPlugin } from './locate.js';
import { checkApiVersion, manifestOf } from './manifest.js';
import { CoreErrors } from '../errors.js';
import { pluginStack } from './plugin-stack.js';

export interface PluginLocation extends LocatedPlugin {
  readonly spec: string;
  readonly packageName: string;
}

/** Where a plugin name leads, or PLUGIN_NOT_FOUND naming every package tried and how to install. */
export function resolvePlugin(spec: string, fromDir: string, finder = new PackageFinder()): PluginLocation {
  if (isPathSpecifier(spec)) {
    const located = locatePath(spec, fromDir);
    if (!located) throw CoreErrors.pluginPathNotFound({ spec, fromDir });
    return { ...located, spec, packageName: located.packageJson?.name ?? located.entry };
  }
  const tried = candidatePackages(spec);
  for (const name of tried) {
    const located = finder.locate(name, fromDir);
    if (located) return { ...located, spec, packageName: name };
  }
  const install = tried.find((name) => name.includes('swarm-plugin-')) ?? spec;
  const close = closeInstalledPlugin(spec, fromDir);
  throw CoreErrors.pluginNotFound(
    { spec, fromDir, tried, install, close },
    { details: { plugin: spec, tried, ...(close ? { didYouMean: close.name, installed: close.packageName } : {}) } },
  );
}

/** Import a located plugin and check its manifest's fields (not yet its API range). */
export async function importManifest(location: PluginLocation): Promise<PluginManifest> {
  let module: Record<string, unknown>;
  try {
    module = (await import(pathToFileURL(location.entry).href)) as Record<string, unknown>;
  } catch (error) {
    throw CoreErrors.pluginLoadFailed(
      { plugin: location.packageName, entry: location.entry, reason: (error as Error).message },
      { cause: error, details: { plugin: location.packageName, stack: pluginStack(error, location.dir) } },
    );
  }
  return manifestOf(module, `"${location.packageName}" (${location.entry})`);
}

/**
 * Import a located plugin and check its manifest and API range. Nothing of the plugin runs
 * beyond its module body: `register` is only called when a deployment is built.
 */
export async function importPlugin(location: PluginLocation, builtin = false): Promise<LoadedPlugin> {
  const manifest = await importManifest(location);
  checkApiVersion(manifest, location.packageName);
  return {
    spec: location.spec,
    packageName: location.packageName,
    manifest,
    dir: location.dir,
    entry: location.entry,
    builtin,
    declaredKinds: location.packageJson?.swarm?.kinds ?? [],
  };
}

/** Resolve and import plugins named in a config, in parallel, keeping their order. */
export async function loadPlugins(specs: readonly string[], fromDir: string): Promise<LoadedPlugin[]> {
  const finder = new PackageFinder();
  const locations = specs.map((spec) => resolvePlugin(spec, fromDir, finder));
  return Promise.all(locations.map((location) => importPlugin(location)));
}
