import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createOn,
  daemonError,
  docker,
  dockerFails,
  eventually,
  startSchedulingCluster,
  type SchedulingCluster,
} from './scheduling-support.js';

// engines 53-54, manager on 23201
const PORT = 23201;

describe('scheduling: affinities through the docker CLI over two real engines', () => {
  let cluster: SchedulingCluster;
  let host: string;

  beforeAll(async () => {
    cluster = await startSchedulingCluster([{ index: 53 }, { index: 54 }], PORT);
    host = cluster.host;
    await docker(
      host,
      'run',
      '-d',
      '--name',
      'anchor',
      '--label',
      'tier=front',
      '-e',
      'constraint:node==node54',
      'busybox:local',
      'sleep',
      '300',
    );
  });

  afterAll(async () => {
    await cluster?.stop();
  });

  it('container (by name and ID) and container-label affinities, and anti-affinity', async () => {
    const anchorId = await docker(host, 'ps', '-q', '--no-trunc', '--filter', 'name=anchor');
    expect(await createOn(host, '-e', 'affinity:container==anchor')).toBe('node54');
    expect(await createOn(host, '-e', `affinity:container==${anchorId}`)).toBe('node54');
    expect(await createOn(host, '-e', 'affinity:tier==front')).toBe('node54');
    expect(await createOn(host, '-e', 'affinity:container!=anchor')).toBe('node53');
  });

  it('image affinity by repository and by repo:tag', async () => {
    await docker('tcp://127.0.0.54:2375', 'tag', 'busybox:local', 'only-here:1');
    await eventually('the manager to see the new tag', async () =>
      (await docker(host, 'images', '--format', '{{.Repository}}')).includes('only-here'),
    );
    expect(await createOn(host, '-e', 'affinity:image==only-here')).toBe('node53');
    expect(await createOn(host, '-e', 'affinity:image==only-here:1')).toBe('node53');
  });

  it("refuses an unsatisfiable affinity with Swarm classic's text; a soft one is dropped", async () => {
    const stderr = await dockerFails(host, 'run', '-d', '-e', 'affinity:container==missing', 'busybox:local', 'true');
    expect(daemonError(stderr)).toBe(
      'Unable to find a node that satisfies the following conditions \n[available container slots]\n[container==missing (soft=false)]\n0/2 nodes are available: 2 affinity container==missing.',
    );
    expect(['node53', 'node54']).toContain(await createOn(host, '-e', 'affinity:container==~missing'));
  });
});
