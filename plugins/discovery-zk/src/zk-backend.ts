import { ErrorCodes, parseKvDiscovery, SwarmError, type Discovery, type DiscoveryBackend, type DiscoveryOptions } from '@swarm/plugin-sdk';
import { ZkDiscovery } from './zk-discovery.js';

const DEFAULT_ZK_PORT = 2181;

export class ZkDiscoveryBackend implements DiscoveryBackend {
  readonly scheme = 'zk';

  open(uri: string, options: DiscoveryOptions): Discovery {
    const target = parseKvDiscovery(this.scheme, uri, options, DEFAULT_ZK_PORT);
    if (target.tls !== undefined) {
      // node-zookeeper-client only speaks plain TCP (no TLS socket option).
      throw new SwarmError(ErrorCodes.NOT_SUPPORTED, 'zk: TLS to ZooKeeper (kv.cacertfile, kv.certfile, kv.keyfile) is not supported; use etcd:// for a TLS store');
    }
    return new ZkDiscovery(target, options);
  }
}
