import { describe, expect, it } from 'vitest';
import { EventDedup } from '../src/event-dedup.js';
import { fromAgent, taskEvent } from '../src/agent-events.js';

const agent = { id: 'a1-S0', name: 'node9', addr: '127.0.0.10:2375', ip: '127.0.0.10' };

describe('agent engine events as Swarm classic shows them', () => {
  it('adds the node object, the node attributes and the ` node:<name>` suffix of `from`', () => {
    const event = fromAgent(
      {
        Type: 'container',
        Action: 'start',
        status: 'start',
        id: 'c1',
        from: 'busybox:local',
        time: 1,
        Actor: { ID: 'c1', Attributes: { image: 'busybox:local', name: 'mesos-123', 'com.docker.swarm.mesos.name': 'web' } },
      },
      agent,
    );
    expect(event.from).toBe('busybox:local node:node9');
    expect(event.node).toEqual({ Name: 'node9', Id: 'a1-S0', Addr: '127.0.0.10:2375', Ip: '127.0.0.10' });
    expect(event['Actor']).toEqual({
      ID: 'c1',
      Attributes: {
        image: 'busybox:local',
        name: 'web',
        'com.docker.swarm.mesos.name': 'web',
        'node.name': 'node9',
        'node.id': 'a1-S0',
        'node.addr': '127.0.0.10:2375',
        'node.ip': '127.0.0.10',
      },
    });
  });

  it('leaves events without `from` (networks, volumes) without one', () => {
    const event = fromAgent({ Type: 'network', Action: 'connect', Actor: { ID: 'n1', Attributes: { name: 'bridge' } } }, agent);
    expect(event.from).toBeUndefined();
    expect((event['Actor'] as { Attributes: Record<string, string> }).Attributes.name).toBe('bridge');
  });

  it('builds a task-update event with the image, the name and a nanosecond time', () => {
    expect(taskEvent('die', { id: 'c2', image: 'busybox:local', name: 'web' }, 1_700_000_000_123)).toEqual({
      Type: 'container',
      Action: 'die',
      status: 'die',
      id: 'c2',
      from: 'busybox:local',
      Actor: { ID: 'c2', Attributes: { image: 'busybox:local', name: 'web' } },
      time: 1_700_000_000,
      timeNano: 1_700_000_000_123_000_000,
    });
  });
});

describe('EventDedup', () => {
  it('drops the task-update copy while the engine stream is open', () => {
    const dedup = new EventDedup();
    expect(dedup.engineEvent('c1', 'start', 1000)).toBe(true);
    expect(dedup.taskEvent('c1', 'start', true, 1100)).toBe(false);
    expect(dedup.taskEvent('c3', 'start', true, 1100)).toBe(false);
  });

  it('publishes the task-update copy when the stream is down, unless the engine told it just before', () => {
    const dedup = new EventDedup();
    expect(dedup.engineEvent('c1', 'die', 1000)).toBe(true);
    expect(dedup.taskEvent('c1', 'die', false, 2000)).toBe(false);
    expect(dedup.taskEvent('c2', 'die', false, 2000)).toBe(true);
    expect(dedup.taskEvent('c1', 'die', false, 1000 + 61_000)).toBe(true);
  });

  it('drops the engine copy of a fact the fallback already told, once', () => {
    const dedup = new EventDedup();
    expect(dedup.taskEvent('c1', 'start', false, 1000)).toBe(true);
    expect(dedup.engineEvent('c1', 'start', 1500)).toBe(false);
    expect(dedup.engineEvent('c1', 'start', 1600)).toBe(true);
    expect(dedup.engineEvent('c1', 'die', 1700)).toBe(true);
  });

  it('never drops repeated engine events (a restarted container starts twice)', () => {
    const dedup = new EventDedup();
    expect(dedup.engineEvent('c1', 'start', 1000)).toBe(true);
    expect(dedup.engineEvent('c1', 'start', 1001)).toBe(true);
  });
});
