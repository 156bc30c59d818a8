import { Tokens, type Discovery, type DiscoveryBackend, type DiscoveryOptions, type Resolver } from '@swarm/plugin-sdk';
import { Defaults } from '../config/defaults.js';
import { parseDiscoveryUri } from './discovery-uri.js';
import { named } from '../plugins/extension-kinds.js';
import { CoreErrors } from '../errors.js';

export interface OpenDiscoveryOptions {
  readonly heartbeat: number;
  readonly ttl: number;
  readonly options: Readonly<Record<string, string>>;
}

/** Throws DISCOVERY_INVALID when no registered backend serves the URI's scheme. */
export function checkDiscoveryScheme(uri: string, schemes: readonly string[]): void {
  const { scheme } = parseDiscoveryUri(uri);
  if (schemes.includes(scheme)) return;
  throw CoreErrors.discoveryUnsupported({ scheme, uri, available: schemes });
}

/**
 * Open a discovery URI with the backend registered for its scheme. `guard`, when given, wraps
 * the backend and what it opens (a third-party plugin's faults then name it).
 */
export function openDiscovery(
  resolver: Resolver,
  uri: string,
  settings: OpenDiscoveryOptions,
  guard: <T extends object>(plugin: T, scheme: string) => T = (plugin) => plugin,
): Discovery {
  const { scheme, rest } = parseDiscoveryUri(uri);
  const token = named(Tokens.DiscoveryBackend, scheme);
  if (!resolver.isRegistered(token, true)) {
    throw CoreErrors.discoveryUnsupported({ scheme, uri });
  }
  const options: DiscoveryOptions = {
    heartbeat: settings.heartbeat,
    ttl: settings.ttl,
    options: { 'kv.path': Defaults.kvPath, ...settings.options },
  };
  const backend = guard(resolver.resolve<DiscoveryBackend>(token), scheme);
  return guard(backend.open(rest, options), scheme);
}
