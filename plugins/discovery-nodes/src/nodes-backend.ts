import { type Discovery, type DiscoveryBackend } from '@swarm/plugin-sdk';
import { parseDiscoveryList } from '@swarm/plugin-sdk/helpers';
import { StaticDiscovery } from './static-discovery.js';

/** `nodes://h1:p,h2:p` with ranges such as `127.0.0.[2:4]:2375`. */
export class NodesDiscoveryBackend implements DiscoveryBackend {
  readonly scheme = 'nodes';

  open(uri: string): Discovery {
    return new StaticDiscovery(parseDiscoveryList(uri));
  }
}
