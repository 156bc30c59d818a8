import { isAbsolute, resolve } from 'node:path';
import type { AccessPluginSettings } from '@swarm/plugin-sdk/access';
import { DOCKER_PLUGIN_DIRS, type DiscoveryDirs } from './discovery.js';
import { DockerAuthzErrors } from './errors.js';

/** dockerd gives a plugin 30 s to appear and to answer its first connection. */
export const DEFAULT_RETRY_MS = 30_000;

export interface DockerAuthzOptions {
  /** A name found as dockerd finds `--authorization-plugin NAME`, or a unix://, http:// or https:// URL. */
  readonly plugin: string;
  /** The name in error texts; default: `plugin` as given. */
  readonly name: string;
  readonly dirs: DiscoveryDirs;
  /** How long to keep trying to find and reach the plugin (dockerd's 30 s). */
  readonly retryMs: number;
}

const URL_SCHEME = /^(unix|tcp|https?):\/\//;

export function isPluginUrl(plugin: string): boolean {
  return URL_SCHEME.test(plugin);
}

function optionalString(options: Readonly<Record<string, unknown>>, key: string): string | undefined {
  const value = options[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '') throw DockerAuthzErrors.optionInvalid({ key, expected: 'a non-empty string' });
  return value;
}

/**
 * `{ plugin, name?, socketsDir?, specDirs?, retryMs? }`. The folders default to dockerd's; relative
 * ones resolve against the config file's folder.
 */
export function parseOptions(settings: Pick<AccessPluginSettings, 'options' | 'configDir'>): DockerAuthzOptions {
  const { options, configDir } = settings;
  const known = new Set(['plugin', 'name', 'socketsDir', 'specDirs', 'retryMs']);
  const unknown = Object.keys(options).find((key) => !known.has(key));
  if (unknown !== undefined)
    throw DockerAuthzErrors.optionInvalid({ key: unknown, expected: `one of ${[...known].join(', ')} (unknown option)` });
  if (options.plugin === undefined) throw DockerAuthzErrors.optionMissing();
  const plugin = optionalString(options, 'plugin')!;
  const at = (path: string) => (isAbsolute(path) ? path : resolve(configDir, path));
  const specDirs = options.specDirs;
  if (specDirs !== undefined && !(Array.isArray(specDirs) && specDirs.every((dir) => typeof dir === 'string' && dir !== ''))) {
    throw DockerAuthzErrors.optionInvalid({ key: 'specDirs', expected: 'a list of folders' });
  }
  const retryMs = options.retryMs ?? DEFAULT_RETRY_MS;
  if (typeof retryMs !== 'number' || !Number.isFinite(retryMs) || retryMs < 0) {
    throw DockerAuthzErrors.optionInvalid({ key: 'retryMs', expected: 'a number of milliseconds, 0 or more' });
  }
  const socketsDir = optionalString(options, 'socketsDir');
  return {
    plugin,
    name: optionalString(options, 'name') ?? plugin,
    dirs: {
      socketsDir: socketsDir === undefined ? DOCKER_PLUGIN_DIRS.socketsDir : at(socketsDir),
      specDirs: specDirs === undefined ? DOCKER_PLUGIN_DIRS.specDirs : (specDirs as string[]).map(at),
    },
    retryMs,
  };
}
