import type { SwarmError } from '@swarm/plugin-sdk';
import type { LoadedPlugin } from './loaded-plugin.js';
import { CoreErrors } from '../errors.js';

const where = (plugin: LoadedPlugin): string => `${plugin.packageName} (${plugin.dir})`;

/**
 * Plugins that may not load side by side, each with its refusal (the later one of a pair): one
 * package listed twice (by one name, or by two that resolve to it) is one mistake in the config,
 * said once; two packages whose manifests claim one name are both named, since the name is how
 * logs, errors and `swarm plugins` tell a plugin.
 */
export function repeatedPlugins(plugins: readonly LoadedPlugin[]): Map<LoadedPlugin, SwarmError> {
  const refused = new Map<LoadedPlugin, SwarmError>();
  const byDir = new Map<string, LoadedPlugin>();
  const byName = new Map<string, LoadedPlugin>();
  for (const plugin of plugins) {
    const same = byDir.get(plugin.dir);
    if (same) {
      const specs = same.spec === plugin.spec ? `'${plugin.spec}' both times` : `as '${same.spec}' and as '${plugin.spec}'`;
      refused.set(plugin, CoreErrors.pluginListedTwice({ package: plugin.packageName, specs }));
      continue;
    }
    byDir.set(plugin.dir, plugin);
    const claimed = byName.get(plugin.manifest.name);
    if (claimed) {
      refused.set(
        plugin,
        CoreErrors.pluginNameClaimed(
          { name: plugin.manifest.name, first: where(claimed), second: where(plugin) },
          { details: { packages: [claimed.packageName, plugin.packageName] } },
        ),
      );
      continue;
    }
    byName.set(plugin.manifest.name, plugin);
  }
  return refused;
}
