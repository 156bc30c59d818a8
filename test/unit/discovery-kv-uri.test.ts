import { describe, expect, it } from 'vitest';
import { isSwarmError, Tokens } from '@swarm/plugin-sdk';
import { parseKvDiscovery } from '@swarm/plugin-sdk/helpers';
import { loadBuiltins, stagePlugins } from '@swarm/core';

const options = (extra: Record<string, string> = {}) => ({ heartbeat: 20, ttl: 60, options: extra });

describe('zk:// and etcd:// URIs', () => {
  it('splits hosts and prefix and places nodes under <prefix>/docker/swarm/nodes', () => {
    expect(parseKvDiscovery('zk', '10.0.0.1:2181,10.0.0.2:2181/swarm/prod', options(), 2181)).toEqual({
      hosts: ['10.0.0.1:2181', '10.0.0.2:2181'],
      prefix: 'swarm/prod',
      nodesPath: 'swarm/prod/docker/swarm/nodes',
    });
    expect(parseKvDiscovery('etcd', 'etcd1,etcd2:4001', options(), 2379)).toMatchObject({
      hosts: ['etcd1:2379', 'etcd2:4001'],
      prefix: '',
      nodesPath: 'docker/swarm/nodes',
    });
  });

  it('replaces docker/swarm/nodes with kv.path, still under the prefix', () => {
    expect(parseKvDiscovery('zk', 'h:1/p', options({ 'kv.path': '/custom/path/' }), 2181).nodesPath).toBe('p/custom/path');
  });

  it('rejects a URI without hosts or with a bad port, naming the scheme', () => {
    for (const [scheme, uri] of [
      ['zk', '/prefix'],
      ['etcd', 'host:notaport/x'],
      ['zk', 'h:99999'],
    ] as const) {
      let caught: unknown;
      try {
        parseKvDiscovery(scheme, uri, options(), 2181);
      } catch (error) {
        caught = error;
      }
      expect(isSwarmError(caught, 'SWARM_ERR_DISCOVERY_INVALID')).toBe(true);
      expect((caught as Error).message).toContain(scheme);
    }
  });

  it('registers as the built-in discovery backends for the zk and etcd schemes', async () => {
    const builtins = await loadBuiltins();
    const mine = builtins.plugins.filter((plugin) => ['@swarm/discovery-zk', '@swarm/discovery-etcd'].includes(plugin.manifest.name));
    const discovery = stagePlugins(mine)
      .filter((entry) => entry.kind === Tokens.DiscoveryBackend)
      .map((entry) => entry.name);
    expect(discovery.sort()).toEqual(['etcd', 'zk']);
  });
});
