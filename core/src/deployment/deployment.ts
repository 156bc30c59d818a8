import type { Cluster, DeploymentConfig, Discovery, ExtensionKind, Scheduler } from '@swarm/plugin-sdk';
import type { DependencyContainer } from 'tsyringe';
import type { BuiltinFailure } from '../plugins/builtins.js';
import type { LoadedPlugin } from '../plugins/loaded-plugin.js';

/** One configured cluster: its own DI container, plugins and services. */
export interface Deployment {
  readonly config: DeploymentConfig;
  readonly container: DependencyContainer;
  /** Built-ins first, then the config's plugins, in order. */
  readonly plugins: readonly LoadedPlugin[];
  readonly builtinFailures: readonly BuiltinFailure[];
  /** Provider names registered for a kind, sorted. */
  available(kind: ExtensionKind): string[];
  /** Resolved on first use. */
  cluster(): Cluster;
  scheduler(): Scheduler;
  /** The discovery opened for `cluster.discovery`, if anything opened it yet. */
  openedDiscovery(): Discovery | undefined;
}
