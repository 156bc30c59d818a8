import { PLUGIN_API_VERSION, type PluginManifest } from '@swarm/plugin-sdk';
import semver from 'semver';
import { CoreErrors } from '../errors.js';

/**
 * What the current major of the plugin API changed, said to the author of a plugin written for
 * the one before: the refusal names what to change, not only the two version numbers. The SDK
 * README's 'Moving to 2.0' has the details.
 */
const CHANGES =
  'plugin API 2.0 made Node.snapshot() and Node.watch() required and Discovery.register optional, split image ' +
  'management (imagePull; imageManagement for import, load, tag and rmi), always passes Strategy.rank its NodeTable, and ' +
  'moved the web-extension and Docker wire types to @swarm/plugin-sdk/web and @swarm/plugin-sdk/docker';

/**
 * Throws PLUGIN_INCOMPATIBLE, saying what changed, when the plugin was written for an older major
 * of the plugin API than this host's (no compatibility layer keeps those working).
 */
export function refuseRetiredApi(manifest: PluginManifest): void {
  const lowest = semver.validRange(manifest.apiVersion) === null ? null : semver.minVersion(manifest.apiVersion);
  if (lowest === null || lowest.major >= semver.major(PLUGIN_API_VERSION)) return;
  if (semver.satisfies(PLUGIN_API_VERSION, manifest.apiVersion, { includePrerelease: true })) return;
  throw CoreErrors.pluginApiRetired(
    { plugin: manifest.name, wants: manifest.apiVersion, provided: PLUGIN_API_VERSION, changes: CHANGES },
    { details: { plugin: manifest.name, version: manifest.version, apiVersion: manifest.apiVersion, provided: PLUGIN_API_VERSION } },
  );
}
