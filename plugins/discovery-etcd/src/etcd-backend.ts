import { type Discovery, type DiscoveryBackend, type DiscoveryOptions } from '@swarm/plugin-sdk';
import { parseKvDiscovery } from '@swarm/plugin-sdk/helpers';
import { EtcdDiscovery } from './etcd-discovery.js';

const DEFAULT_ETCD_PORT = 2379;

export class EtcdDiscoveryBackend implements DiscoveryBackend {
  readonly scheme = 'etcd';

  open(uri: string, options: DiscoveryOptions): Discovery {
    return new EtcdDiscovery(parseKvDiscovery(this.scheme, uri, options, DEFAULT_ETCD_PORT), options);
  }
}
