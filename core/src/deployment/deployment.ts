import type { Cluster, DeploymentConfig, Discovery, ExtensionKind, Scheduler } from '@swarm/plugin-sdk';
import type { DiscoveryStatus, WebExtension } from '@swarm/plugin-sdk/web';
import type { DependencyContainer } from 'tsyringe';
import type { BuiltinFailure } from '../plugins/builtins.js';
import type { LoadedPlugin } from '../plugins/loaded-plugin.js';
import type { StagedProvider } from '../plugins/stage.js';
import type { PluginGuard } from '../plugins/plugin-guard.js';
import type { PlacementJournal } from './placement-journal.js';

/** A web extension the config names, ready to mount. */
export interface ConfiguredWebExtension {
  readonly name: string;
  readonly settings: Readonly<Record<string, string | number | boolean>>;
  readonly extension: WebExtension;
}

/** One configured cluster: its own DI container, plugins and services. */
export interface Deployment {
  readonly config: DeploymentConfig;
  readonly container: DependencyContainer;
  /** Built-ins first, then the config's plugins, in order. */
  readonly plugins: readonly LoadedPlugin[];
  /** What the plugins registered, in order. */
  readonly providers: readonly StagedProvider[];
  /** Names plugins in their errors, times their calls (metrics) and marks them for the watchdog. */
  readonly guard: PluginGuard;
  readonly builtinFailures: readonly BuiltinFailure[];
  /** Provider names registered for a kind, sorted. */
  available(kind: ExtensionKind): string[];
  /** Resolved on first use. */
  cluster(): Cluster;
  scheduler(): Scheduler;
  /** The discovery opened for `cluster.discovery`, if anything opened it yet. */
  openedDiscovery(): Discovery | undefined;
  /** What the discovery reported so far (`driver` when the driver reads the URI itself). */
  discoveryStatus(): DiscoveryStatus;
  /** The placements made, kept only when the deployment serves web extensions. */
  readonly placements: PlacementJournal | undefined;
  /** The web extensions the config names (`web`, `ui`), created on call. */
  webExtensions(): ConfiguredWebExtension[];
}
