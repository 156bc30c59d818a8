import { describe, expect, it } from 'vitest';
import { ErrorCodes, type ClusterSettings } from '@swarm/plugin-sdk';
import { testDeployment } from '@swarm/plugin-sdk/testing';
import { matchImage, parseRepositoryTag } from '../src/image-match.js';
import { readClusterOptions } from '../src/cluster-options.js';

describe('image matching', () => {
  const image = {
    Id: 'sha256:abcdef0123456789',
    RepoTags: ['busybox:local', '127.0.0.1:5000/tools/busybox:1'],
    RepoDigests: ['busybox@sha256:feed'],
    Created: 0,
    Size: 0,
  };
  it.each([
    ['busybox:local', true],
    ['busybox', false],
    ['127.0.0.1:5000/tools/busybox:1', true],
    ['127.0.0.1:5000/tools/busybox', false],
    ['abcdef', true],
    ['sha256:abcdef0123456789', true],
    ['ab', false],
    ['busybox@sha256:feed', true],
  ])('%s → %s', (reference, matches) => expect(matchImage(image, reference)).toBe(matches));

  it('keeps a registry port in the repository', () => {
    expect(parseRepositoryTag('127.0.0.1:5000/busybox')).toEqual({ repository: '127.0.0.1:5000/busybox', tag: '' });
    expect(parseRepositoryTag('a/b:c')).toEqual({ repository: 'a/b', tag: 'c' });
  });
});

describe('cluster options', () => {
  const settings = (options: Record<string, string>, extra: Partial<ClusterSettings> = {}): ClusterSettings =>
    testDeployment({ driver: 'swarm', discovery: 'nodes://h:1', options, ...extra }).cluster;

  it('defaults like Swarm classic', () => {
    expect(readClusterOptions(settings({}))).toEqual({
      overcommitPercent: 5,
      createRetry: 0,
      refreshMinMs: 30_000,
      refreshMaxMs: 60_000,
      pendingRetryMaxMs: 60_000,
      failureRetry: 3,
      requestTimeoutMs: 10_000,
      livenessIntervalMs: 3_000,
      livenessTimeoutMs: 4_000,
      rescheduleGraceMs: 0,
    });
    expect(
      readClusterOptions(settings({ 'swarm.livenessinterval': '1.5', 'swarm.livenesstimeout': '2', 'swarm.reschedule.grace': '1m30s' })),
    ).toMatchObject({ livenessIntervalMs: 1_500, livenessTimeoutMs: 2_000, rescheduleGraceMs: 90_000 });
    // an engine not validated yet is tried again at least every heartbeat, as classic validated its pending engines
    expect(readClusterOptions(settings({}, { heartbeat: 5 })).pendingRetryMaxMs).toBe(5_000);
    expect(readClusterOptions(settings({ 'swarm.overcommit': '-0.5', 'swarm.createretry': '2' }))).toMatchObject({
      overcommitPercent: -50,
      createRetry: 2,
    });
  });

  it.each([
    [{ 'swarm.overcommit': '-1.5' }, {}, 'swarm.overcommit should be larger than -1, -1.500000 is invalid'],
    [{ 'swarm.createretry': '-1' }, {}, 'swarm.createretry can not be negative, -1 is invalid'],
    [{ 'swarm.createretry': '1.5' }, {}, 'swarm.createretry must be an integer, 1.5 is invalid'],
    [{}, { engineRefreshMinInterval: 0 }, 'min refresh interval should be a positive number, 0 is invalid'],
    [{}, { engineRefreshMaxInterval: 10 }, 'max refresh interval cannot be less than min refresh interval'],
    [{}, { engineFailureRetry: 0 }, 'invalid failure retry count, 0 is invalid'],
    [{ 'swarm.livenessinterval': '0' }, {}, 'swarm.livenessinterval must be a positive number of seconds, 0 is invalid'],
    [{ 'swarm.livenesstimeout': 'soon' }, {}, 'swarm.livenesstimeout must be a number, "soon" is invalid'],
    [
      { 'swarm.reschedule.grace': '30' },
      {},
      'swarm.reschedule.grace must be a duration such as 30s or 2m (0 reschedules at once), "30" is invalid',
    ],
    [
      { 'swarm.reschedule.grace': '-5s' },
      {},
      'swarm.reschedule.grace must be a duration such as 30s or 2m (0 reschedules at once), "-5s" is invalid: it is negative',
    ],
  ])('refuses %j %j', (options, extra, message) => {
    expect(() => readClusterOptions(settings(options, extra))).toThrow(message);
    try {
      readClusterOptions(settings(options, extra));
    } catch (error) {
      expect((error as { code: string }).code).toBe(ErrorCodes.CONFIG_INVALID);
    }
  });
});
