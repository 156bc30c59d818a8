import type { Discovery, DiscoveryBackend, DiscoveryOptions } from '@swarm/plugin-sdk';
import { FileDiscoveryErrors } from './errors.js';
import { FileDiscovery } from './file-discovery.js';

/** `file:///path/to/cluster` (or `file://relative/path`). */
export class FileDiscoveryBackend implements DiscoveryBackend {
  readonly scheme = 'file';

  open(uri: string, options: DiscoveryOptions): Discovery {
    const path = uri.trim();
    if (path === '') throw FileDiscoveryErrors.pathMissing();
    if (!(options.heartbeat > 0)) throw FileDiscoveryErrors.heartbeatInvalid({ heartbeat: options.heartbeat });
    return new FileDiscovery(path, options.heartbeat * 1000);
  }
}
