import { describe, expect, it } from 'vitest';
import { relaunchConfig } from '../src/relaunch-config.js';
import { RestartedIds } from '../src/restarted-ids.js';

describe('RestartedIds', () => {
  it('leads an old ID, or a unique prefix of it, to the latest container after several restarts', () => {
    const ids = new RestartedIds();
    ids.replaced('aaaa1111', 'bbbb2222');
    ids.replaced('bbbb2222', 'cccc3333');
    expect(ids.current('aaaa1111')).toBe('cccc3333');
    expect(ids.current('aaaa')).toBe('cccc3333');
    expect(ids.current('bbbb2222')).toBe('cccc3333');
    expect(ids.current('aaa')).toBeUndefined();
    expect(ids.current('dddd')).toBeUndefined();
  });

  it('forgets every ID leading to a removed container', () => {
    const ids = new RestartedIds();
    ids.replaced('aaaa1111', 'bbbb2222');
    ids.replaced('bbbb2222', 'cccc3333');
    ids.removed('cccc3333');
    expect(ids.current('aaaa1111')).toBeUndefined();
    expect(ids.current('bbbb2222')).toBeUndefined();
  });

  it('finds nothing for a prefix two replaced containers share', () => {
    const ids = new RestartedIds();
    ids.replaced('abcd1111', 'x1');
    ids.replaced('abcd2222', 'x2');
    expect(ids.current('abcd')).toBeUndefined();
    expect(ids.current('abcd1')).toBe('x1');
  });
});

describe('relaunchConfig', () => {
  it('keeps the config and host config and drops the labels the driver adds to each task', () => {
    const config = relaunchConfig({
      Id: 'c1',
      Name: '/mesos-1',
      Image: 'sha256:1',
      Config: {
        Image: 'busybox',
        Cmd: ['sleep', '10'],
        Env: ['A=1'],
        Labels: { keep: 'me', 'com.docker.swarm.mesos.task': 'web.1', 'com.docker.swarm.mesos.name': 'web' },
      },
      HostConfig: { Memory: 33554432 },
    });
    expect(config).toEqual({
      Image: 'busybox',
      Cmd: ['sleep', '10'],
      Env: ['A=1'],
      Labels: { keep: 'me' },
      HostConfig: { Memory: 33554432 },
    });
  });
});
