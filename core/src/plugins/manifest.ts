import { PLUGIN_API_VERSION, type SwarmError, type PluginManifest } from '@swarm/plugin-sdk';
import semver from 'semver';
import { CoreErrors } from '../errors.js';
import { refuseRetiredApi } from './retired-api.js';

function invalid(where: string, text: string): SwarmError {
  return CoreErrors.pluginManifestInvalid({ where, text }, { details: { plugin: where } });
}

/** `definePlugin` of any SDK copy marks the manifest with this registry symbol (part of the plugin API). */
const MANIFEST_BRAND = Symbol.for('swarm.plugin.manifest');

/** Whether a value is a manifest made by `definePlugin` (from any copy of the SDK). */
export function isPluginManifest(value: unknown): value is PluginManifest {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[MANIFEST_BRAND] === true;
}

/** The manifest a plugin module exports: `export default definePlugin(...)` or `export const plugin`. */
export function manifestOf(module: Record<string, unknown>, where: string): PluginManifest {
  const candidate = isPluginManifest(module.default) ? module.default : (module.plugin ?? module.default);
  if (typeof candidate !== 'object' || candidate === null) {
    throw invalid(where, 'the module exports no plugin manifest (export default definePlugin({ ... }))');
  }
  if (!isPluginManifest(candidate)) throw invalid(where, 'the manifest was not made with definePlugin() from @swarm/plugin-sdk');
  const fields = candidate as unknown as Record<string, unknown>;
  for (const field of ['name', 'version', 'apiVersion'] as const) {
    if (typeof fields[field] !== 'string' || fields[field] === '') throw invalid(where, `field "${field}" is missing or not a string`);
  }
  if (typeof fields.register !== 'function') throw invalid(where, 'field "register" is missing or not a function');
  if (semver.valid(candidate.version) === null) throw invalid(where, `field "version" is not a semver version: "${candidate.version}"`);
  if (semver.validRange(candidate.apiVersion) === null)
    throw invalid(where, `field "apiVersion" is not a semver range: "${candidate.apiVersion}"`);
  return candidate;
}

/**
 * Throws PLUGIN_INCOMPATIBLE when the plugin's API range does not include this host's version,
 * naming the npm package (`packageName`, when it was found as one) for the two ways out.
 */
export function checkApiVersion(manifest: PluginManifest, packageName: string = manifest.name): void {
  if (semver.satisfies(PLUGIN_API_VERSION, manifest.apiVersion, { includePrerelease: true })) return;
  refuseRetiredApi(manifest);
  const provided = PLUGIN_API_VERSION;
  throw CoreErrors.pluginIncompatible(
    { plugin: manifest.name, version: manifest.version, wants: manifest.apiVersion, provided, packageName },
    { details: { plugin: manifest.name, package: packageName, version: manifest.version, apiVersion: manifest.apiVersion, provided } },
  );
}

export function isApiCompatible(apiVersion: string): boolean {
  return semver.validRange(apiVersion) !== null && semver.satisfies(PLUGIN_API_VERSION, apiVersion, { includePrerelease: true });
}
