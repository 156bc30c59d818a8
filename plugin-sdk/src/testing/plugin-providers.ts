import { container as rootContainer } from 'tsyringe';
import type { PluginContext, PluginManifest, Provider, Resolver } from '../plugin.js';
import { PLUGIN_API_VERSION } from '../version.js';
import { SdkErrors } from '../errors.js';
import { noopLogger } from './noop-logger.js';
import type { Filter, Strategy } from '../scheduler.js';
import { Tokens, type ExtensionKind } from '../tokens.js';

/** What a plugin registered, instantiated on demand against the services a test gives. */
export interface RegisteredProviders {
  /** Provider names registered for a kind, in registration order. */
  names(kind: ExtensionKind): string[];
  get<T>(kind: ExtensionKind, name: string): T;
  filter(name: string): Filter;
  /** The strategy, built with these options under `Tokens.StrategyOptions`. */
  strategy(name: string, options?: Readonly<Record<string, string | number | boolean>>): Strategy;
}

function resolverFor(services: Readonly<Record<string, unknown>>): Resolver {
  return {
    resolve<T>(token: string): T {
      if (!(token in services)) throw SdkErrors.testServiceMissing({ token });
      return services[token] as T;
    },
    isRegistered: (token) => token in services,
  };
}

function instantiate<T>(provider: Provider<T>, services: Readonly<Record<string, unknown>>): T {
  if ('useValue' in provider) return provider.useValue;
  if ('useFactory' in provider) return provider.useFactory(resolverFor(services));
  const child = rootContainer.createChildContainer();
  for (const [token, value] of Object.entries(services)) child.register(token, { useValue: value });
  return child.resolve(provider.useClass as never);
}

/**
 * Run a plugin's `register` against a recording context (the same calls the host makes), so a
 * test can build exactly what the host would get from the manifest.
 */
export function pluginProviders(manifest: PluginManifest, services: Readonly<Record<string, unknown>> = {}): RegisteredProviders {
  const providers = new Map<ExtensionKind, Map<string, Provider<unknown>>>();
  const provide = <T>(kind: ExtensionKind, name: string, provider: Provider<T>): void => {
    const forKind = providers.get(kind) ?? new Map<string, Provider<unknown>>();
    if (forKind.has(name)) throw SdkErrors.testDuplicateProvider({ plugin: manifest.name, name });
    forKind.set(name, provider as Provider<unknown>);
    providers.set(kind, forKind);
  };
  const context: PluginContext = {
    apiVersion: PLUGIN_API_VERSION,
    provide,
    driver: (name, provider) => provide(Tokens.ClusterDriver, name, provider),
    filter: (name, provider) => provide(Tokens.Filter, name, provider),
    strategy: (name, provider) => provide(Tokens.Strategy, name, provider),
    discovery: (scheme, provider) => provide(Tokens.DiscoveryBackend, scheme, provider),
    web: (name, provider) => provide(Tokens.WebExtension, name, provider),
    authn: (name, provider) => provide(Tokens.Authenticator, name, provider),
    authz: (name, provider) => provide(Tokens.Authorizer, name, provider),
    admission: (name, provider) => provide(Tokens.AdmissionController, name, provider),
  };
  manifest.register(context);
  const get = <T>(kind: ExtensionKind, name: string, extra: Readonly<Record<string, unknown>> = {}): T => {
    const provider = providers.get(kind)?.get(name);
    if (!provider) throw SdkErrors.testProviderMissing({ plugin: manifest.name, name, kind });
    return instantiate(provider as Provider<T>, { [Tokens.Logger]: noopLogger, ...services, ...extra });
  };
  return {
    names: (kind) => [...(providers.get(kind)?.keys() ?? [])],
    get: (kind, name) => get(kind, name),
    filter: (name) => get<Filter>(Tokens.Filter, name),
    strategy: (name, options = {}) => get<Strategy>(Tokens.Strategy, name, { [Tokens.StrategyOptions]: options }),
  };
}
