import 'reflect-metadata';
import { PLUGIN_API_VERSION, Tokens, type Provider, type Resolver } from '@swarm/plugin-sdk';
import { silentLogger } from '../logging/silent-logger.js';
import { named } from '../plugins/extension-kinds.js';
import { container as globalContainer, instanceCachingFactory, Lifecycle, type DependencyContainer } from 'tsyringe';
import type { StagedProvider } from '../plugins/stage.js';
import { TypedEvents } from '../util/typed-events.js';
import { SWARM_VERSION } from '../version.js';

/**
 * A deployment's own container, a child of tsyringe's global one into which nothing is ever
 * registered: two deployments in one process share no service. The host-wide defaults are
 * registered here, in each deployment, and the deployment registers its own logger, clock and
 * event bus over them.
 */
export function createDeploymentContainer(): DependencyContainer {
  const container = globalContainer.createChildContainer();
  container.register(Tokens.HostConfig, { useValue: { version: SWARM_VERSION, pluginApiVersion: PLUGIN_API_VERSION } });
  container.register(Tokens.Logger, { useValue: silentLogger });
  container.register(Tokens.Clock, { useValue: { now: () => Date.now() } });
  container.register(Tokens.EventBus, { useValue: new TypedEvents<Record<string, (payload: unknown) => void>>() });
  return container;
}

/** Register a factory that runs once per container, on first resolve. */
export function registerLazy<T>(container: DependencyContainer, token: string, factory: (resolver: Resolver) => T): void {
  container.register<T>(token, { useFactory: instanceCachingFactory<T>((c) => factory(c)) });
}

function registerProvider(container: DependencyContainer, token: string, provider: Provider<unknown>): void {
  if ('useValue' in provider) container.register(token, { useValue: provider.useValue });
  else if ('useFactory' in provider) registerLazy(container, token, provider.useFactory);
  else container.register(token, { useClass: provider.useClass as new (...args: never[]) => unknown }, { lifecycle: Lifecycle.Singleton });
}

/** Put staged plugin providers into a deployment container under `named(kind, name)`. */
export function commitProviders(container: DependencyContainer, staged: readonly StagedProvider[]): void {
  for (const entry of staged) registerProvider(container, named(entry.kind, entry.name), entry.provider);
}
