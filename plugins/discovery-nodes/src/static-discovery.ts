import type { Discovery, DiscoveryEntry, DiscoveryWatcher } from '@swarm/plugin-sdk';
import { NodesDiscoveryErrors } from './errors.js';

/** A fixed list of engines: reported once, never changes. */
export class StaticDiscovery implements Discovery {
  constructor(private readonly entries: readonly DiscoveryEntry[]) {}

  watch(onEntries: (entries: readonly DiscoveryEntry[]) => void): DiscoveryWatcher {
    let stopped = false;
    queueMicrotask(() => {
      if (!stopped) onEntries(this.entries);
    });
    return {
      stop: () => {
        stopped = true;
      },
    };
  }

  register(addr: string): Promise<void> {
    return Promise.reject(NodesDiscoveryErrors.fixedList({ addr }));
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
