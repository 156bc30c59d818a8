import type { ExtensionKind } from './tokens.js';

/** The part of the DI container a factory may use: resolve host and deployment services by token. */
export interface Resolver {
  resolve<T>(token: string): T;
  isRegistered(token: string, recursive?: boolean): boolean;
}

/** A class whose constructor parameters all carry `@inject(TOKEN)` (and the class `@injectable()`). */
export type InjectableClass<T> = new (...args: never[]) => T;

/**
 * How a plugin supplies an implementation. `useFactory` and `useValue` work from plain
 * JavaScript and from any copy of the SDK; `useClass` needs the SDK's `injectable`/`inject`
 * decorators from the same SDK copy the host uses.
 */
export type Provider<T> =
  { readonly useClass: InjectableClass<T> } | { readonly useFactory: (resolver: Resolver) => T } | { readonly useValue: T };

/** How a cluster driver uses the deployment's discovery argument (since plugin API 1.4). */
export interface DriverOptions {
  /**
   * `required` (the default, and what hosts before 1.4 assume): `swarm manage` refuses to start
   * without a discovery. `optional`: the driver finds its nodes itself (a Kubernetes API server)
   * and reads the argument only when one is given.
   */
  readonly discovery?: 'required' | 'optional';
}

export interface PluginContext {
  /** The plugin API version of the host (e.g. "1.0.0"). */
  readonly apiVersion: string;
  /** Register a named provider for an extension kind (`Tokens.Filter`, `Tokens.Strategy`, ...). */
  provide<T>(kind: ExtensionKind, name: string, provider: Provider<T>): void;
  /** Shorthands for `provide` with the matching kind. */
  driver(name: string, provider: Provider<unknown>, options?: DriverOptions): void;
  filter(name: string, provider: Provider<unknown>): void;
  strategy(name: string, provider: Provider<unknown>): void;
  discovery(scheme: string, provider: Provider<unknown>): void;
  /** A web extension (`WebExtension`) served under `/swarm/<name>/`; since plugin API 1.3. */
  web(name: string, provider: Provider<unknown>): void;
}

export interface PluginDefinition {
  /** npm package name or a short descriptive name. */
  readonly name: string;
  readonly version: string;
  /** semver range of the plugin API this plugin works with, e.g. `^1.0.0`. */
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

/** The `swarm` field a plugin package declares in its package.json. */
export interface PluginPackageField {
  readonly plugin: true;
  /** What it provides, for `swarm plugins` listings before loading: e.g. ["filter"]. */
  readonly kinds?: readonly string[];
}
