import { describe, expect, it } from 'vitest';
import { ErrorCodes, isSwarmError, type DiscoveryEntry } from '@swarm/plugin-sdk';
import { parseDiscoveryList } from '@swarm/plugin-sdk/helpers';
import { discoveryConformance } from '@swarm/plugin-sdk/testing';
import plugin, { NodesDiscoveryBackend } from '@swarm/discovery-nodes';

const options = { heartbeat: 1, ttl: 20, options: {} };

function firstEntries(uri: string): Promise<readonly DiscoveryEntry[]> {
  const discovery = new NodesDiscoveryBackend().open(uri, options);
  return new Promise((resolve, reject) => discovery.watch(resolve, reject));
}

describe('nodes:// discovery', () => {
  it('expands ranges and keeps the order given', async () => {
    const entries = await firstEntries('127.0.0.[2:4]:2375,10.0.0.1:2376');
    expect(entries.map((entry) => entry.addr)).toEqual(['127.0.0.2:2375', '127.0.0.3:2375', '127.0.0.4:2375', '10.0.0.1:2376']);
    expect(entries[3]).toEqual({ host: '10.0.0.1', port: 2376, addr: '10.0.0.1:2376' });
  });

  it('expands a range in the port and drops duplicates', () => {
    expect(parseDiscoveryList('h:[2375:2376], h:2375').map((entry) => entry.addr)).toEqual(['h:2375', 'h:2376']);
  });

  it('accepts bracketed IPv6 addresses', () => {
    expect(parseDiscoveryList('[::1]:2375')).toEqual([{ host: '::1', port: 2375, addr: '[::1]:2375' }]);
  });

  it.each([
    ['', 'empty discovery list: expected host:port[,host:port...]'],
    ['127.0.0.1', 'invalid discovery entry "127.0.0.1": expected host:port (for example 127.0.0.2:2375)'],
    ['a:1,,b:2', 'invalid discovery list "a:1,,b:2": empty item'],
    ['h:0', 'invalid discovery entry "h:0": expected host:port (for example 127.0.0.2:2375)'],
    ['127.0.0.[5:2]:2375', 'invalid discovery range "127.0.0.[5:2]:2375": 5 is greater than 2'],
    ['10.[0:99999].0.1:2375', 'invalid discovery range "10.[0:99999].0.1:2375": more than 4096 addresses'],
  ])('refuses %j with DISCOVERY_INVALID', (uri, message) => {
    let caught: unknown;
    try {
      new NodesDiscoveryBackend().open(uri, options);
    } catch (error) {
      caught = error;
    }
    expect(isSwarmError(caught, ErrorCodes.DISCOVERY_INVALID)).toBe(true);
    expect((caught as Error).message).toBe(message);
  });

  it('offers no register: the list is the URI', () => {
    expect(new NodesDiscoveryBackend().open('h:1', options).register).toBeUndefined();
  });

  it('registers the nodes scheme', () => {
    const names: string[] = [];
    plugin.register({
      apiVersion: '1.0.0',
      provide: () => undefined,
      driver: () => undefined,
      filter: () => undefined,
      strategy: () => undefined,
      discovery: (scheme) => names.push(scheme),
    });
    expect(names).toEqual(['nodes']);
  });
});

describe('nodes:// against the SDK discovery conformance', () => {
  discoveryConformance(
    new NodesDiscoveryBackend(),
    {
      uri: '127.0.0.[2:3]:2375,10.0.0.1:2376',
      entries: [
        { host: '127.0.0.2', port: 2375, addr: '127.0.0.2:2375' },
        { host: '127.0.0.3', port: 2375, addr: '127.0.0.3:2375' },
        { host: '10.0.0.1', port: 2376, addr: '10.0.0.1:2376' },
      ],
      invalidUris: ['', '127.0.0.1', '127.0.0.[3:2]:2375'],
    },
    { it },
  );
});
