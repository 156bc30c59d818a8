import { describe, expect, it } from 'vitest';
import { ErrorCodes } from '@swarm/plugin-sdk';
import { engineLabels, formatDuration, parseDuration, withNode } from '@swarm/plugin-sdk/helpers';

const node = { id: 'E1|10.0.0.1:2375', name: 'node1', addr: '10.0.0.1:2375', ip: '10.0.0.1' };

describe('engineLabels (Swarm classic engine.go updateSpecs)', () => {
  it('puts the standard labels first; engine labels cannot override them, `node` and malformed ones are left out', () => {
    expect(
      engineLabels({
        Driver: 'overlay2',
        KernelVersion: '6.1',
        OperatingSystem: 'Debian',
        OSType: 'linux',
        Labels: ['zone=a', 'storagedriver=zfs', 'node=node9', 'broken', 'empty=', 'eq=a=b'],
      }),
    ).toEqual({
      storagedriver: 'overlay2',
      kernelversion: '6.1',
      operatingsystem: 'Debian',
      ostype: 'linux',
      zone: 'a',
      empty: '',
      eq: 'a=b',
    });
  });

  it('leaves out the standard labels an engine does not report', () => {
    expect(engineLabels({ Labels: null })).toEqual({});
    expect(engineLabels({ Driver: '', Labels: ['ostype=custom'] })).toEqual({ ostype: 'custom' });
  });
});

describe('withNode (Swarm classic normalizeEvent)', () => {
  it('adds the node object, the node attributes and the ` node:<name>` suffix of `from`, keeping the rest', () => {
    const event = withNode(
      { Type: 'container', Action: 'start', id: 'c1', from: 'busybox', Actor: { ID: 'c1', Attributes: { image: 'busybox', name: 'x' } } },
      node,
      { name: 'web' },
    );
    expect(event).toEqual({
      Type: 'container',
      Action: 'start',
      id: 'c1',
      from: 'busybox node:node1',
      Actor: {
        ID: 'c1',
        Attributes: {
          image: 'busybox',
          name: 'web',
          'node.name': 'node1',
          'node.id': 'E1|10.0.0.1:2375',
          'node.addr': '10.0.0.1:2375',
          'node.ip': '10.0.0.1',
        },
      },
      node: { Name: 'node1', Id: 'E1|10.0.0.1:2375', Addr: '10.0.0.1:2375', Ip: '10.0.0.1' },
    });
  });

  it('gives events without `from` (networks, volumes) none, and events without an actor one', () => {
    const event = withNode({ Type: 'network', Action: 'create' }, node);
    expect(event.from).toBeUndefined();
    expect((event['Actor'] as { Attributes: Record<string, string> }).Attributes['node.name']).toBe('node1');
  });
});

describe('Go durations', () => {
  it.each([
    ['30s', 30_000],
    ['1m30s', 90_000],
    ['250ms', 250],
    ['1.5h', 5_400_000],
    ['-1s', -1000],
    ['+2m', 120_000],
    ['0', 0],
    ['1us', 0.001],
  ])('parses %s as %d ms', (text, ms) => expect(parseDuration(text)).toBe(ms));

  it.each([
    ['30', 'time: missing unit in duration "30"'],
    ['s', 'time: invalid duration "s"'],
    ['123asd', 'time: invalid duration "123asd"'],
    ['', 'time: invalid duration ""'],
  ])('refuses %j in Go words', (text, message) =>
    expect(() => parseDuration(text)).toThrow(expect.objectContaining({ code: ErrorCodes.INVALID_ARGUMENT, message })),
  );

  it.each([
    [0, '0s'],
    [200, '200ms'],
    [1500, '1.5s'],
    [5000, '5s'],
    [90_000, '1m30s'],
    [60_000, '1m0s'],
    [3_600_000, '1h0m0s'],
    [-2000, '-2s'],
  ])('formats %d ms as %s', (ms, text) => expect(formatDuration(ms)).toBe(text));
});
