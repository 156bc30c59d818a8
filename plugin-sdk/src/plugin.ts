import type { ExtensionKind } from './tokens.js';

/** The part of the DI container a factory may use: resolve host and deployment services by token. */
export interface Resolver {
  resolve<T>(token: string): T;
  isRegistered(token: string, recursive?: boolean): boolean;
}

/**
 * How a plugin supplies an implementation: `useFactory` (given a resolver for host services),
 * `useValue`, or `useClass` for a class built without arguments. No decorators: a factory reads
 * what it needs from the resolver.
 */
export type Provider<T> =
  { readonly useClass: new () => T } | { readonly useFactory: (resolver: Resolver) => T } | { readonly useValue: T };

/** How a cluster driver uses the deployment's discovery argument. */
export interface DriverOptions {
  /**
   * `required` (the default): `swarm manage` refuses to start
   * without a discovery. `optional`: the driver finds its nodes itself (a Kubernetes API server)
   * and reads the argument only when one is given.
   */
  readonly discovery?: 'required' | 'optional';
}

export interface PluginContext {
  /** The plugin API version of the host (e.g. "2.0.0"). */
  readonly apiVersion: string;
  /** Register a named provider for an extension kind (`Tokens.Filter`, `Tokens.Strategy`, ...). */
  provide<T>(kind: ExtensionKind, name: string, provider: Provider<T>): void;
  /** Shorthands for `provide` with the matching kind. */
  driver(name: string, provider: Provider<unknown>, options?: DriverOptions): void;
  filter(name: string, provider: Provider<unknown>): void;
  strategy(name: string, provider: Provider<unknown>): void;
  discovery(scheme: string, provider: Provider<unknown>): void;
  /** A web extension (`WebExtension`) served under `/swarm/<name>/`. */
  web(name: string, provider: Provider<unknown>): void;
  /**
   * Access plugins (plugin API 2.1): an `AuthenticatorFactory`, `AuthorizerFactory` or
   * `AdmissionFactory` from `@swarm/plugin-sdk/access`. A plugin that registers them declares
   * `apiVersion: '^2.1.0'`.
   */
  authn(name: string, provider: Provider<unknown>): void;
  authz(name: string, provider: Provider<unknown>): void;
  admission(name: string, provider: Provider<unknown>): void;
}

export interface PluginDefinition {
  /** npm package name or a short descriptive name. */
  readonly name: string;
  readonly version: string;
  /** semver range of the plugin API this plugin works with, e.g. `^2.0.0`. */
  readonly apiVersion: string;
  readonly description?: string;
  register(context: PluginContext): void;
}

/** A plugin manifest: what `definePlugin` returns and a plugin package's entry exports. */
export type PluginManifest = Readonly<PluginDefinition>;

/**
 * Hosts recognise a manifest by this registry symbol, so manifests made by any copy of the SDK
 * are accepted. Its key, `swarm.plugin.manifest`, is part of the plugin API.
 */
const MANIFEST_BRAND = Symbol.for('swarm.plugin.manifest');

export function definePlugin(definition: PluginDefinition): PluginManifest {
  return Object.freeze({ ...definition, [MANIFEST_BRAND]: true as const });
}
