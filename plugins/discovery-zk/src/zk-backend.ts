import { type Discovery, type DiscoveryBackend, type DiscoveryOptions } from '@swarm/plugin-sdk';
import { parseKvDiscovery } from '@swarm/plugin-sdk/helpers';
import { ZkDiscovery } from './zk-discovery.js';

const DEFAULT_ZK_PORT = 2181;

export class ZkDiscoveryBackend implements DiscoveryBackend {
  readonly scheme = 'zk';

  open(uri: string, options: DiscoveryOptions): Discovery {
    return new ZkDiscovery(parseKvDiscovery(this.scheme, uri, options, DEFAULT_ZK_PORT), options);
  }
}
