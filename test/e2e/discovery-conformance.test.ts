import { afterAll, beforeAll, describe, it } from 'vitest';
import type { Discovery, DiscoveryBackend, DiscoveryOptions } from '@swarm/plugin-sdk';
import { discoveryConformance } from '@swarm/plugin-sdk/testing';
import { EtcdDiscoveryBackend } from '@swarm/discovery-etcd';
import { ZkDiscoveryBackend } from '@swarm/discovery-zk';
import { startEtcd, startZooKeeper, type Service } from '../harness/services.js';

// The SDK's discovery conformance suite, as a third-party author runs it, against the built-in
// key-value backends on real stores (nodes:// and file:// run it in their own packages' tests, the
// Kubernetes lease discovery in driver-kubernetes's). Ports 26220-26229 belong to this file.
const STORES = [
  { backend: new ZkDiscoveryBackend(), start: startZooKeeper, port: 26220 },
  { backend: new EtcdDiscoveryBackend(), start: startEtcd, port: 26225 },
] as const;

/** Long enough that the entry registered before the checks outlives them. */
const OPTIONS: DiscoveryOptions = { heartbeat: 1, ttl: 120, options: {} };
const KNOWN = { host: '127.0.0.9', port: 2375, addr: '127.0.0.9:2375' };

for (const store of STORES) {
  const backend: DiscoveryBackend = store.backend;
  describe(`the built-in ${backend.scheme}:// discovery against the SDK discovery conformance`, () => {
    let service: Service | undefined;
    let joiner: Discovery | undefined;
    const uri = () => `${service?.addr ?? '127.0.0.1:1'}/conformance`;

    beforeAll(async () => {
      service = await store.start(store.port);
      // one engine registered as `swarm join` would, so that watch has something to deliver; the
      // joiner stays open (ZooKeeper's entry lives as long as the joiner's session)
      joiner = backend.open(uri(), OPTIONS);
      await joiner.register?.(KNOWN.addr);
    }, 120_000);

    afterAll(async () => {
      await joiner?.close();
      await service?.stop();
    }, 120_000);

    describe('checks', () => {
      // the URI is known once the store runs: the suite's checks read it when they run
      void discoveryConformance(
        backend,
        {
          get uri() {
            return uri();
          },
          entries: [KNOWN],
          invalidUris: ['/prefix', 'host:notaport/x', 'h:99999'],
          options: OPTIONS,
          timeoutMs: 15_000,
        },
        { it },
      );
    });
  });
}
