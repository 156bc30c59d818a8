import { Tokens, type DriverOptions, type ExtensionKind, type Provider } from '@swarm/plugin-sdk';
import { kindLabel } from './extension-kinds.js';
import { createPluginContext } from './plugin-context.js';
import { repeatedPlugins } from './repeated-plugins.js';
import type { LoadedPlugin } from './loaded-plugin.js';
import { CoreErrors } from '../errors.js';
import { pluginStack } from './plugin-stack.js';

/** One provider a plugin asked to register, not yet in any container. */
export interface StagedProvider {
  readonly kind: ExtensionKind;
  readonly name: string;
  readonly provider: Provider<unknown>;
  readonly plugin: LoadedPlugin;
  /** A cluster driver's options (`ctx.driver(name, provider, options)`). */
  driverOptions?: DriverOptions;
}

function checkProvider(kind: ExtensionKind, name: unknown, provider: unknown): void {
  if (typeof name !== 'string' || name === '') throw CoreErrors.providerWithoutName({ kind: kindLabel(kind) });
  const shape = provider as Record<string, unknown> | null;
  const ways = ['useClass', 'useFactory', 'useValue'].filter((way) => typeof shape === 'object' && shape !== null && way in shape);
  if (ways.length !== 1) throw CoreErrors.providerShape({ kind: kindLabel(kind), name });
}

/** Run one plugin's `register` against a recording context. */
function stageOne(plugin: LoadedPlugin): StagedProvider[] {
  const staged: StagedProvider[] = [];
  const provide = <T>(kind: ExtensionKind, name: string, provider: Provider<T>): void => {
    checkProvider(kind, name, provider);
    staged.push({ kind, name, provider: provider as Provider<unknown>, plugin });
  };
  const context = createPluginContext(provide, (name, options) => {
    const entry = staged.findLast((candidate) => candidate.kind === Tokens.ClusterDriver && candidate.name === name);
    if (entry) entry.driverOptions = options;
  });
  try {
    plugin.manifest.register(context);
  } catch (error) {
    throw CoreErrors.pluginRegisterFailed(
      { plugin: plugin.manifest.name, reason: (error as Error).message ?? String(error) },
      { cause: error, details: { plugin: plugin.manifest.name, stack: pluginStack(error, plugin.dir) } },
    );
  }
  return staged;
}

/**
 * Call every plugin's `register` and collect what they provide, refusing two providers of the
 * same kind and name. Nothing reaches a container here, so a failure leaves nothing behind.
 */
export function stagePlugins(plugins: readonly LoadedPlugin[]): StagedProvider[] {
  const [repeated] = repeatedPlugins(plugins).values();
  if (repeated) throw repeated;
  const all: StagedProvider[] = [];
  const byKey = new Map<string, StagedProvider>();
  for (const plugin of plugins) {
    for (const entry of stageOne(plugin)) {
      const key = `${entry.kind}:${entry.name}`;
      const existing = byKey.get(key);
      if (existing) {
        throw CoreErrors.providerDuplicate(
          { kind: kindLabel(entry.kind), name: entry.name, first: existing.plugin.packageName, second: entry.plugin.packageName },
          { details: { kind: kindLabel(entry.kind), name: entry.name, packages: [existing.plugin.packageName, entry.plugin.packageName] } },
        );
      }
      byKey.set(key, entry);
      all.push(entry);
    }
  }
  return all;
}

/** How a provided name reads in listings and hints: `filter gpu`, `cluster driver mesos`. */
export function providedName(kind: ExtensionKind, name: string): string {
  return `${kindLabel(kind)} ${name}`;
}

/** What one plugin provides, by kind label (`filter`, `strategy`, ...), for listings. */
export function providedKinds(plugin: LoadedPlugin): { kinds: string[]; names: string[] } {
  const staged = stageOne(plugin);
  return {
    kinds: [...new Set(staged.map((entry) => kindLabel(entry.kind)))],
    names: staged.map((entry) => providedName(entry.kind, entry.name)),
  };
}
