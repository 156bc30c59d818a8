import { createSwarm, ErrorCodes } from '@swarm/core';
import { expect, test } from 'vitest';

test('a driver that reads the discovery URI itself (mesos://) is not refused for lacking a discovery backend', async () => {
  const swarm = await createSwarm({ cluster: { driver: 'mesos', discovery: 'mesos://127.0.0.1:1' } });
  expect(swarm.cluster.driverName).toBe('mesos');
  expect(swarm.deployment.openedDiscovery()).toBeUndefined();
});

test('the swarm driver still refuses an unknown scheme at start, listing the available ones', async () => {
  const swarm = await createSwarm({ cluster: { discovery: 'foo://x' } });
  const started = swarm.start();
  await expect(started).rejects.toMatchObject({ code: ErrorCodes.DISCOVERY_INVALID });
  await expect(started).rejects.toThrow(
    'unsupported discovery "foo://" in "foo://x"; available: etcd://, file://, k8s://, nodes://, zk://',
  );
});

test('a mistyped scheme gets a suggestion', async () => {
  const swarm = await createSwarm({ cluster: { discovery: 'etdc://127.0.0.1:2379/prod' } });
  await expect(swarm.start()).rejects.toThrow(
    'unsupported discovery "etdc://" in "etdc://127.0.0.1:2379/prod"; available: etcd://, file://, k8s://, nodes://, zk://; did you mean "etcd://"?',
  );
});
