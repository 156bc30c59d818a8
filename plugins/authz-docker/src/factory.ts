import type { Logger } from '@swarm/plugin-sdk';
import type { AccessPluginSettings, AuthorizerFactory } from '@swarm/plugin-sdk/access';
import { RetryableFailure, withRetry } from './backoff.js';
import { candidatePaths, endpointFromUrl, locatePlugin, type PluginEndpoint } from './discovery.js';
import { DockerAuthorizer } from './docker-authorizer.js';
import { DockerAuthzErrors } from './errors.js';
import { decodeGoStruct } from './go-json.js';
import { isPluginUrl, parseOptions, type DockerAuthzOptions } from './options.js';
import { PluginClient } from './plugin-client.js';

/** What a plugin must list in its `Plugin.Activate` manifest to be an authorization plugin. */
export const AUTHZ_IMPLEMENTS = 'authz';

/** Finds the plugin as dockerd does, retrying while it is not there yet (a plugin starting alongside). */
async function findEndpoint(options: DockerAuthzOptions, logger: Logger): Promise<PluginEndpoint> {
  if (isPluginUrl(options.plugin)) return endpointFromUrl(options.name, options.plugin, 'the "plugin" option');
  const notFound = () => DockerAuthzErrors.notFound({ name: options.plugin, looked: candidatePaths(options.plugin, options.dirs) });
  return withRetry(
    async () => {
      const found = await locatePlugin(options.plugin, options.dirs);
      if (found === undefined) throw new RetryableFailure(notFound());
      return found;
    },
    options.retryMs,
    (_, waitMs) => logger.warn(`Unable to locate plugin: ${options.plugin}, retrying in ${waitMs / 1000}s`),
  );
}

/** `/Plugin.Activate`: the manifest must say `Implements: ["authz"]`, or dockerd refuses to start. */
async function activate(client: PluginClient, name: string): Promise<void> {
  let implementsList: unknown;
  try {
    implementsList = decodeGoStruct(await client.call('Plugin.Activate', ''), 'plugins.Manifest', { Implements: 'stringArray' }).Implements;
  } catch (error) {
    throw DockerAuthzErrors.activationFailed({ name, reason: (error as Error).message }, { cause: error });
  }
  if (!Array.isArray(implementsList) || !implementsList.includes(AUTHZ_IMPLEMENTS)) {
    throw DockerAuthzErrors.activationFailed({ name, reason: 'Plugin does not implement the requested driver' });
  }
}

/**
 * The `docker` authorizer's factory: finds and activates the plugin once, at start-up, as dockerd
 * does for `--authorization-plugin` (a plugin that is missing or says it is no authz plugin stops
 * the manager from starting), then asks it about every request.
 */
export const createDockerAuthorizer: AuthorizerFactory = async (settings: AccessPluginSettings) => {
  const options = parseOptions(settings);
  const { logger } = settings;
  const endpoint = await findEndpoint(options, logger);
  // dockerd's words, so an operator who knows its log knows what this one means
  const onRetry = (failure: Error, waitMs: number) =>
    logger.warn(`Unable to connect to plugin ${endpoint.name}: ${failure.message}, retrying in ${waitMs / 1000}s`);
  const client = await PluginClient.create(endpoint, { budgetMs: options.retryMs, onRetry });
  try {
    await activate(client, endpoint.name);
  } catch (error) {
    client.close();
    throw error;
  }
  logger.info(`authorization plugin ${endpoint.name} at ${endpoint.addr} (from ${endpoint.source}) activated`);
  return new DockerAuthorizer(endpoint.name, client);
};
