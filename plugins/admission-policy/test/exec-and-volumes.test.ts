import { describe, expect, it } from 'vitest';
import { ALICE, CI, ROOT, admit, create, outcome } from './support.js';

/** What the host asks about an exec: the container's config with the exec's user and privileges laid over. */
const exec = (over: { User?: string; Privileged?: boolean }) =>
  create(
    { Memory: 1 << 28, NanoCpus: 5e8, SecurityOpt: ['no-new-privileges'], Privileged: over.Privileged ?? false },
    { User: over.User ?? '1000' },
  );

/** What the host asks about `docker volume create`: the volume as the one mount of a config. */
const volume = (options: Record<string, string>, driver = 'local') =>
  create(
    { Mounts: [{ Type: 'volume', Source: 'v', Target: '/', VolumeOptions: { DriverConfig: { Name: driver, Options: options } } }] },
    { Image: '' },
  );

describe('container.exec', () => {
  it.each([
    ['baseline, --privileged', CI, exec({ Privileged: true }), 'admission policy "baseline" forbids HostConfig.Privileged'],
    ['baseline, -u 0', CI, exec({ User: '0' }), 'allowed'],
    ['restricted, -u 0', ALICE, exec({ User: '0' }), 'admission policy "restricted" forbids User'],
    ['restricted, a non-root user', ALICE, exec({ User: '1000' }), 'allowed'],
    ['privileged, --privileged', ROOT, exec({ Privileged: true }), 'allowed'],
  ])('%s', (_case, who, config, expected) => {
    const text = outcome(admit(who, config, 'container.exec'));
    if (expected === 'allowed') expect(text).toBe('allowed');
    else expect(text.startsWith(expected), text).toBe(true);
  });
});

describe('volume.create', () => {
  it.each([
    ['a bind of /etc', CI, volume({ type: 'none', o: 'bind', device: '/etc' }), 'admission policy "baseline" forbids DriverOpts.device'],
    ['a read-only bind under an allowed prefix', CI, volume({ type: 'none', o: 'bind,ro', device: '/data/x' }), 'allowed'],
    [
      'a writable bind under a read-only prefix',
      CI,
      volume({ type: 'none', o: 'bind', device: '/data/x' }),
      'admission policy "baseline" forbids DriverOpts.o: /data/x is under /data, which is allowed read-only (add ro to o)',
    ],
    ['a plain local volume', ALICE, volume({}), 'allowed'],
    [
      'an NFS volume',
      CI,
      volume({ type: 'nfs', o: 'addr=10.0.0.1', device: ':/exports' }),
      'admission policy "baseline" forbids DriverOpts.type: nfs reaches the network',
    ],
    [
      'another driver',
      CI,
      volume({ device: '/etc' }, 'rexray'),
      'admission policy "baseline" forbids Driver: rexray is not a volume driver',
    ],
    ['privileged: anything', ROOT, volume({ type: 'none', o: 'bind', device: '/etc' }), 'allowed'],
  ])('%s', (_case, who, config, expected) => {
    const text = outcome(admit(who, config, 'volume.create'));
    if (expected === 'allowed') expect(text).toBe('allowed');
    else expect(text.startsWith(expected)).toBe(true);
  });
});
