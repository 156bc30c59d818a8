import { ErrorCodes, SwarmError, type Discovery, type DiscoveryBackend, type DiscoveryOptions } from '@swarm/plugin-sdk';
import { FileDiscovery } from './file-discovery.js';

/** `file:///path/to/cluster` (or `file://relative/path`). */
export class FileDiscoveryBackend implements DiscoveryBackend {
  readonly scheme = 'file';

  open(uri: string, options: DiscoveryOptions): Discovery {
    const path = uri.trim();
    if (path === '') throw new SwarmError(ErrorCodes.DISCOVERY_INVALID, 'file discovery needs a path: file:///path/to/cluster-file');
    if (!(options.heartbeat > 0)) {
      throw new SwarmError(ErrorCodes.DISCOVERY_INVALID, `file discovery needs a positive heartbeat, got ${options.heartbeat}`);
    }
    return new FileDiscovery(path, options.heartbeat * 1000);
  }
}
