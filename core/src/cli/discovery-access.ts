import { Tokens, type Discovery } from '@swarm/plugin-sdk';
import { loadPluginSet } from '../deployment/plugin-set.js';
import { parseDiscoveryUri } from '../discovery/discovery-uri.js';
import { checkDiscoveryScheme, openDiscovery, type OpenDiscoveryOptions } from '../discovery/open-discovery.js';
import type { CliConfig } from './cli-config.js';

/** Open a discovery URI with the backends of the built-ins and the config's plugins. */
export async function openCliDiscovery(cli: CliConfig, uri: string, options: OpenDiscoveryOptions): Promise<Discovery> {
  const set = await loadPluginSet(cli.resolved.config.plugins, cli.configDir, cli.logger, {
    discoverySchemes: [parseDiscoveryUri(uri).scheme],
  });
  checkDiscoveryScheme(uri, set.available(Tokens.DiscoveryBackend));
  return openDiscovery(set.createContainer(), uri, options);
}
