import { readFile } from 'node:fs/promises';
import type { Discovery, DiscoveryEntry, DiscoveryWatcher } from '@swarm/plugin-sdk';
import { FileDiscoveryErrors } from './errors.js';
import { parseFileContent } from './file-content.js';
import { asError } from '@swarm/plugin-sdk/helpers';

/** Re-reads the file every heartbeat and reports the entries whenever they change. */
export class FileDiscovery implements Discovery {
  constructor(
    private readonly path: string,
    private readonly heartbeatMs: number,
  ) {}

  watch(onEntries: (entries: readonly DiscoveryEntry[]) => void, onError: (error: Error) => void): DiscoveryWatcher {
    let last: string | undefined;
    let stopped = false;
    let timer: NodeJS.Timeout | undefined;
    const poll = async () => {
      try {
        const entries = await this.read();
        const key = entries.map((entry) => entry.addr).join(',');
        if (!stopped && key !== last) {
          last = key;
          onEntries(entries);
        }
      } catch (error) {
        if (!stopped) onError(asError(error));
      }
      if (!stopped) timer = setTimeout(() => void poll(), this.heartbeatMs);
    };
    void poll();
    return {
      stop: () => {
        stopped = true;
        clearTimeout(timer);
      },
    };
  }

  async read(): Promise<DiscoveryEntry[]> {
    let content: string;
    try {
      content = await readFile(this.path, 'utf8');
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw FileDiscoveryErrors.unreadable({ path: this.path, reason }, { cause: error });
    }
    return parseFileContent(content, this.path);
  }

  register(addr: string): Promise<void> {
    return Promise.reject(FileDiscoveryErrors.readOnly({ path: this.path, addr }));
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
