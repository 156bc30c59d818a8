import type { PluginManifest } from '@swarm/plugin-sdk';

/** A plugin module imported and checked, ready to register into a deployment. */
export interface LoadedPlugin {
  /** The name as written in the config (or the package name, for built-ins). */
  readonly spec: string;
  /** The npm package it came from (or the file path for a plugin given as a file). */
  readonly packageName: string;
  readonly manifest: PluginManifest;
  /** Where it was resolved from. */
  readonly dir: string;
  readonly entry: string;
  readonly builtin: boolean;
  /** What the package.json says it provides (`swarm.kinds`), before registering. */
  readonly declaredKinds: readonly string[];
}
