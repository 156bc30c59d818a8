import type { DiscoveryEntry, EngineEndpoint } from '@swarm/plugin-sdk';
import type { EngineTls } from '@swarm/plugin-sdk/helpers';

export function engineEndpoint(entry: DiscoveryEntry, tls: EngineTls | undefined): EngineEndpoint {
  return tls ? { protocol: 'https', host: entry.host, port: entry.port, tls } : { protocol: 'http', host: entry.host, port: entry.port };
}
