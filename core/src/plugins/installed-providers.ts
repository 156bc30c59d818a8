import { installedPluginPackages } from './installed-packages.js';
import { importPlugin, resolvePlugin } from './load.js';
import { providedKinds } from './stage.js';

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
