import { className, type PluginFiles } from './template-parts.js';

/**
 * A discovery backend for `<name>://host:port,host:port`: it reads the list once and reports it,
 * as `nodes://` does. It passes the SDK's discovery conformance as it is; an author replaces the
 * parsing with a lookup in their service registry and calls `onEntries` again when it changes.
 */
export function discoveryFiles(name: string): PluginFiles {
  const backend = className(name, 'Discovery');
  return {
    [`src/${name}-discovery.ts`]: `import { ErrorCodes, SwarmError, type Discovery, type DiscoveryBackend, type DiscoveryEntry } from '@swarm/plugin-sdk';

/**
 * \`swarm manage ${name}://10.0.0.1:2375,10.0.0.2:2375\`: the engines listed in the URI. Replace
 * \`entriesOf\` with a lookup in your registry, and call \`onEntries\` again whenever it changes
 * (every \`options.heartbeat\` seconds, or on the registry's own notifications).
 */
export class ${backend} implements DiscoveryBackend {
  readonly scheme = '${name}';

  open(uri: string): Discovery {
    const entries = entriesOf(uri);
    return {
      watch: (onEntries) => {
        let stopped = false;
        // asynchronously, as a registry lookup would: the host subscribes before the first answer
        queueMicrotask(() => {
          if (!stopped) onEntries(entries);
        });
        return { stop: () => void (stopped = true) };
      },
      // no \`register\`: the engines are listed in the URI (add one to offer \`swarm join\`)
      close: () => Promise.resolve(),
    };
  }
}

function entriesOf(uri: string): DiscoveryEntry[] {
  if (uri.trim() === '')
    throw new SwarmError(ErrorCodes.DISCOVERY_INVALID, '${name}:// needs engines: ${name}://10.0.0.1:2375,10.0.0.2:2375');
  return uri.split(',').map((addr) => {
    const match = /^([a-zA-Z0-9.-]+):(\\d{1,5})$/.exec(addr.trim());
    const port = Number(match?.[2]);
    if (!match || port < 1 || port > 65535)
      throw new SwarmError(ErrorCodes.DISCOVERY_INVALID, \`${name}://: "\${addr}" is not host:port (for example 10.0.0.1:2375)\`);
    return { host: match[1]!, port, addr: \`\${match[1]}:\${port}\` };
  });
}
`,
    [`test/${name}.test.ts`]: `import { describe, expect, it } from 'vitest';
import { Tokens, type DiscoveryBackend } from '@swarm/plugin-sdk';
import { discoveryConformance, pluginProviders } from '@swarm/plugin-sdk/testing';
import { plugin } from '../dist/index.js';

const backend = pluginProviders(plugin).get<DiscoveryBackend>(Tokens.DiscoveryBackend, '${name}');

describe('${name} discovery', () => {
  discoveryConformance(
    backend,
    {
      uri: '10.0.0.1:2375,10.0.0.2:2376',
      entries: [
        { host: '10.0.0.1', port: 2375, addr: '10.0.0.1:2375' },
        { host: '10.0.0.2', port: 2376, addr: '10.0.0.2:2376' },
      ],
      invalidUris: ['', '10.0.0.1', '10.0.0.1:http', '10.0.0.1:70000'],
    },
    { it },
  );

  it('names the entry that is wrong', () => {
    expect(() => backend.open('10.0.0.1:2375,oops', { heartbeat: 1, ttl: 3, options: {} })).toThrow('"oops" is not host:port');
  });
});
`,
  };
}
