import { HollowErrors } from './errors.js';
import { asObject, asString, hostConfigOf, type HollowContainer, type PublishedPort } from './model.js';

const FIRST_EPHEMERAL_PORT = 32768;

/** Host ports held by running containers of one engine, as dockerd's port allocator. */
export class PortAllocator {
  private readonly taken = new Set<string>();
  private nextEphemeral = FIRST_EPHEMERAL_PORT;

  /** Binds the container's `HostConfig.PortBindings`; fails like dockerd when a port is already allocated. */
  bind(container: HollowContainer, engineHost: string): PublishedPort[] {
    const bindings = asObject(hostConfigOf(container.body)['PortBindings']) ?? {};
    const published: PublishedPort[] = [];
    for (const [key, list] of Object.entries(bindings)) {
      const [privatePort = '0', proto = 'tcp'] = key.split('/');
      for (const binding of Array.isArray(list) ? list : []) {
        const requested = Number(asString(asObject(binding)?.['HostPort']) || 0);
        const hostPort = requested || this.ephemeral(proto);
        const hostIp = asString(asObject(binding)?.['HostIp']) || engineHost;
        if (this.taken.has(`${hostPort}/${proto}`)) {
          this.release(published);
          throw HollowErrors.portAllocated({ endpoint: `${container.name} (${container.id})`, hostIp, hostPort });
        }
        this.taken.add(`${hostPort}/${proto}`);
        published.push({ privatePort: Number(privatePort), proto, hostIp, hostPort });
      }
    }
    return published;
  }

  release(published: readonly PublishedPort[]): void {
    for (const port of published) this.taken.delete(`${port.hostPort}/${port.proto}`);
  }

  private ephemeral(proto: string): number {
    while (this.taken.has(`${this.nextEphemeral}/${proto}`)) this.nextEphemeral++;
    return this.nextEphemeral++;
  }
}
