import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  countsByNode,
  createOn,
  daemonError,
  docker,
  dockerFails,
  removeAll,
  runOn,
  startSchedulingCluster,
  type SchedulingCluster,
} from './scheduling-support.js';

// engines 55-56 (containerslots=4), manager on 23202
const PORT = 23202;
const HEADER = 'Unable to find a node that satisfies the following conditions ';

describe('scheduling (docker create/run): ports, dependencies and container slots through the docker CLI over two real engines', () => {
  let cluster: SchedulingCluster;
  let host: string;

  beforeAll(async () => {
    cluster = await startSchedulingCluster(
      [
        { index: 55, labels: ['containerslots=4'] },
        { index: 56, labels: ['containerslots=4'] },
      ],
      PORT,
    );
    host = cluster.host;
  });

  afterAll(async () => {
    await cluster?.stop();
  });

  it('bridge mode: one container per node may publish a host port', async () => {
    const first = await createOn(host, '-p', '8080:80');
    const second = await createOn(host, '-p', '8080:80');
    expect([first, second].sort()).toEqual(['node55', 'node56']);
    expect(daemonError(await dockerFails(host, 'run', '-d', '-p', '8080:80', 'busybox:local', 'true'))).toBe(
      `${HEADER}\n[port 8080 (Bridge mode)]\n0/2 nodes are available: 2 port 8080 (Bridge mode).`,
    );
  });

  it('host mode: one container per node may expose a port', async () => {
    const nodes = [await createOn(host, '--net=host', '--expose=9090'), await createOn(host, '--net=host', '--expose=9090')];
    expect(nodes.sort()).toEqual(['node55', 'node56']);
    expect(daemonError(await dockerFails(host, 'run', '-d', '--net=host', '--expose=9090', 'busybox:local', 'true'))).toBe(
      `${HEADER}\n[port 9090/tcp (Host mode)]\n0/2 nodes are available: 2 port 9090/tcp (Host mode).`,
    );
    await removeAll(host);
  });

  it('places --link, --volumes-from and --net=container: next to their target', async () => {
    const dbNode = await runOn(host, '--name', 'db');
    expect(daemonError(await dockerFails(host, 'run', '-d', '--volumes-from', 'nope', 'busybox:local', 'true'))).toBe(
      `${HEADER}\n[available container slots]\n[--volumes-from=nope]\n0/2 nodes are available: 2 dependency --volumes-from=nope.`,
    );
    expect(await createOn(host, '--link', 'db:database')).toBe(dbNode);
    expect(await createOn(host, '--volumes-from', 'db')).toBe(dbNode);
    expect(await createOn(host, '--net=container:db')).toBe(dbNode);
    await removeAll(host);
  });

  it('containerslots=4 caps containers per node, stopped ones included, also for parallel runs', async () => {
    await docker(host, 'run', '-e', 'constraint:node==node55', 'busybox:local', 'true');
    // Parallel runs must never over-commit a node (pending creations count as containers).
    await Promise.allSettled(Array.from({ length: 9 }, () => createOn(host)));
    const afterParallel = await countsByNode(host);
    expect(Math.max(...Object.values(afterParallel))).toBeLessThanOrEqual(4);
    // Then the remaining slots fill up one by one, to exactly 4 per node.
    for (let free = 8 - Object.values(afterParallel).reduce((a, b) => a + b, 0); free > 0; free--) await createOn(host);
    expect(await countsByNode(host)).toEqual({ node55: 4, node56: 4 });
    expect(daemonError(await dockerFails(host, 'run', '-d', 'busybox:local', 'true'))).toBe(
      `${HEADER}\n[available container slots]\n0/2 nodes are available: 2 no available container slots.`,
    );
  });
});
