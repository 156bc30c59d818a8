import type { Discovery, DiscoveryEntry, DiscoveryWatcher } from '@swarm/plugin-sdk';

/**
 * A fixed list of engines: reported once, never changes. No `register`: the list is the URI, and
 * `swarm join` says so for a discovery without it.
 */
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

  close(): Promise<void> {
    return Promise.resolve();
  }
}
