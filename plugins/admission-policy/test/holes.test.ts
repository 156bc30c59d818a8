import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AdmissionRequest } from '@swarm/plugin-sdk/access';
import type { ContainerConfig } from '@swarm/plugin-sdk/docker';
import { noopLogger } from '@swarm/plugin-sdk/testing';
import { createPolicyController, profileDigest } from '@swarm/admission-policy';
import { ALICE, CI, ROOT, RESTRICTED_OK, create, outcome } from './support.js';

/** Issue 42's holes 3, 6, 7 and 8, judged with options that name what an operator would allow. */
const ALLOW_ALL = '{\n  "defaultAction": "SCMP_ACT_ALLOW"\n}\n';
const OPERATORS = '{ "defaultAction": "SCMP_ACT_ERRNO", "syscalls": [ { "names": ["read"], "action": "SCMP_ACT_ALLOW" } ] }';
const dir = mkdtempSync(join(tmpdir(), 'policy-holes-'));
writeFileSync(join(dir, 'strict.json'), OPERATORS);

const OPTIONS = {
  bindings: [
    { group: 'team-a', level: 'restricted' },
    { group: 'admins', level: 'privileged' },
  ],
  allowedHostPaths: ['/data', { path: '/scratch', readOnly: false }, { path: '/logs', readOnly: true }],
  allowedVolumeDrivers: ['nfs-plugin'],
  allowedSeccompProfiles: ['strict.json'],
  allowedAppArmorProfiles: ['tenant-profile'],
  allowedCgroupParents: ['/tenants', 'tenants.slice'],
};
const policy = createPolicyController({ options: OPTIONS, configDir: dir, logger: noopLogger });
const judge = (config: unknown, who = CI, action: AdmissionRequest['action'] = 'container.create') =>
  outcome(policy.admit({ caller: who, action, config: config as ContainerConfig }));
const forbids = (rest: string) => `admission policy "baseline" forbids ${rest}`;

/** `docker volume create` as the host asks about it. */
const volume = (options: Record<string, string>, driver = 'local') =>
  create(
    { Mounts: [{ Type: 'volume', Source: 'v', Target: '/', VolumeOptions: { DriverConfig: { Name: driver, Options: options } } }] },
    { Image: '' },
  );
/** `--mount type=volume,volume-opt=...` inline in a create. */
const inline = (options: Record<string, string>, driver?: string) =>
  create({
    Mounts: [
      {
        Type: 'volume',
        Source: 'v',
        Target: '/v',
        VolumeOptions: { DriverConfig: { ...(driver ? { Name: driver } : {}), Options: options } },
      },
    ],
  });
const INLINE = 'HostConfig.Mounts[0].VolumeOptions.DriverConfig';

describe('hole 3: local volume options', () => {
  const HOST_FS = "mounts what the engine's host has (baseline allows tmpfs, size, and o=bind under allowedHostPaths)";
  it.each([
    ['proc', { type: 'proc', device: 'proc' }, `DriverOpts.type: proc ${HOST_FS}`],
    ['sysfs', { type: 'sysfs', device: 'sysfs' }, `DriverOpts.type: sysfs ${HOST_FS}`],
    ['devtmpfs', { type: 'devtmpfs', device: 'devtmpfs' }, `DriverOpts.type: devtmpfs ${HOST_FS}`],
    [
      'overlay over host directories',
      { type: 'overlay', device: 'overlay', o: 'lowerdir=/etc,upperdir=/tmp/u,workdir=/tmp/w' },
      `DriverOpts.type: overlay ${HOST_FS}`,
    ],
    ['a host disk', { type: 'ext4', device: '/dev/sda1' }, `DriverOpts.type: ext4 ${HOST_FS}`],
    [
      'NFS',
      { type: 'nfs', device: ':/export', o: 'addr=169.254.169.254' },
      "DriverOpts.type: nfs reaches the network from the engine's host",
    ],
    ['CIFS', { type: 'cifs', device: '//10.0.0.1/share' }, "DriverOpts.type: cifs reaches the network from the engine's host"],
    ['a device without a type', { device: '/dev/sda1' }, `DriverOpts.device: a device ${HOST_FS}`],
    ['a tmpfs that binds', { type: 'tmpfs', device: '/etc', o: 'bind' }, 'DriverOpts.device: /etc is outside /data, /scratch, /logs'],
    [
      'a tmpfs with a bind flag among others',
      { type: 'tmpfs', device: 'tmpfs', o: 'size=1m,rbind' },
      'DriverOpts.device: tmpfs is outside',
    ],
    [
      'a bind with shared propagation',
      { type: 'none', device: '/data/x', o: 'bind,ro,rshared' },
      "DriverOpts.o: rshared propagation reaches the host's mounts",
    ],
    ['a tmpfs remounted', { type: 'tmpfs', device: 'tmpfs', o: 'remount' }, 'DriverOpts.o: remount is not a tmpfs option baseline allows'],
    ['an option the local driver does not have', { Type: 'proc' }, 'DriverOpts.Type: not an option of the local driver'],
    ['a plugin driver not listed', {}, 'Driver: sshfs is not a volume driver the operator allowed (allowedVolumeDrivers)'],
  ])('refuses %s, by volume create and inline', (what, options, expected) => {
    const driver = what.startsWith('a plugin') ? 'sshfs' : 'local';
    expect(judge(volume(options, driver), CI, 'volume.create').startsWith(forbids(expected))).toBe(true);
    const inlineExpected = expected.replace(/^DriverOpts/, `${INLINE}.Options`).replace(/^Driver:/, `${INLINE}.Name:`);
    expect(judge(inline(options, driver)).startsWith(forbids(inlineExpected)), judge(inline(options, driver))).toBe(true);
  });

  it.each([
    ['no options', {}],
    ['a quota', { size: '10G' }],
    ['a tmpfs with tmpfs options', { type: 'tmpfs', device: 'tmpfs', o: 'size=100m,uid=1000,mode=0700,noexec' }],
    ['a read-only bind under a read-only entry', { type: 'none', device: '/data/x', o: 'bind,ro' }],
    ['a bind of a writable entry', { type: 'none', device: '/scratch', o: 'bind' }],
  ])('allows %s at baseline', (_what, options) => {
    expect(judge(volume(options), CI, 'volume.create')).toBe('allowed');
    expect(judge(inline(options))).toBe('allowed');
  });

  it('allows a listed plugin driver its options at baseline, and no options at all at restricted', () => {
    expect(judge(volume({ share: '10.0.0.1:/x' }, 'nfs-plugin'), CI, 'volume.create')).toBe('allowed');
    expect(judge(volume({ size: '1G' }), ALICE, 'volume.create')).toBe(
      'admission policy "restricted" forbids DriverOpts.size: restricted allows no volume driver options',
    );
    expect(judge(volume({}), ALICE, 'volume.create')).toBe('allowed');
    expect(judge(volume({ type: 'proc', device: 'proc' }), ROOT, 'volume.create')).toBe('allowed');
  });

  it('refuses a plugin driver for anonymous and named volumes (--volume-driver)', () => {
    expect(judge(create({ VolumeDriver: 'sshfs', Binds: ['vol:/v'] }))).toBe(
      forbids('HostConfig.VolumeDriver: sshfs is not a volume driver the operator allowed (allowedVolumeDrivers)'),
    );
    expect(judge(create({ VolumeDriver: 'local', Binds: ['vol:/v'] }))).toBe('allowed');
  });
});

describe('hole 6: host paths read-only unless an entry says otherwise', () => {
  it('refuses mount flags among --tmpfs options, and allows tmpfs options', () => {
    expect(judge(create({ Tmpfs: { '/t': 'rw,bind' } }))).toBe(
      forbids('HostConfig.Tmpfs["/t"]: bind is not a tmpfs option baseline allows'),
    );
    expect(judge(create({ Tmpfs: { '/t': 'remount,ro' } }))).toBe(
      forbids('HostConfig.Tmpfs["/t"]: remount is not a tmpfs option baseline allows'),
    );
    expect(judge(create({ Tmpfs: { '/t': 'rw,noexec,nosuid,size=65536k', '/u': '' } }))).toBe('allowed');
  });

  it.each([
    [
      'a writable bind under a read-only entry',
      { Binds: ['/data/x:/x'] },
      'HostConfig.Binds[0]: /data/x is under /data, which is allowed read-only (add :ro)',
    ],
    [
      'an entry given as an object, read-only',
      { Binds: ['/logs/a:/a:rw'] },
      'HostConfig.Binds[0]: /logs/a is under /logs, which is allowed read-only (add :ro)',
    ],
    [
      'a writable --mount',
      { Mounts: [{ Type: 'bind', Source: '/data/x', Target: '/x' }] },
      'HostConfig.Mounts[0].ReadOnly: /data/x is under /data, which is allowed read-only (readonly in --mount)',
    ],
    [
      'a read-only --mount whose submounts stay writable',
      { Mounts: [{ Type: 'bind', Source: '/data/x', Target: '/x', ReadOnly: true, BindOptions: { ReadOnlyNonRecursive: true } }] },
      'HostConfig.Mounts[0].BindOptions.ReadOnlyNonRecursive: /data/x is under /data, which is allowed read-only (submounts stay writable)',
    ],
    [
      'a --mount that creates its source',
      { Mounts: [{ Type: 'bind', Source: '/data/new', Target: '/x', ReadOnly: true, BindOptions: { CreateMountpoint: true } }] },
      'HostConfig.Mounts[0].BindOptions.CreateMountpoint: it creates directories on the host',
    ],
    [
      'a path below a writable entry (a link a container planted)',
      { Binds: ['/scratch/link:/host:ro'] },
      'HostConfig.Binds[0]: /scratch/link is below the writable /scratch, where a container may have planted a symbolic link; bind /scratch itself',
    ],
    [
      'a --mount below a writable entry',
      { Mounts: [{ Type: 'bind', Source: '/scratch/link/etc', Target: '/x', ReadOnly: true }] },
      'HostConfig.Mounts[0].Source: /scratch/link/etc is below the writable /scratch',
    ],
    [
      '.. after a possible link',
      { Binds: ['/scratch/link/../../etc:/x:ro'] },
      'HostConfig.Binds[0]: /scratch/link/../../etc has a .. segment',
    ],
  ])('refuses %s', (_what, host, expected) => {
    expect(judge(create(host)).startsWith(forbids(expected)), judge(create(host))).toBe(true);
  });

  it.each([
    ['read-only binds', { Binds: ['/data/x:/x:ro', '/logs:/l:ro,z'] }],
    ['a read-only --mount', { Mounts: [{ Type: 'bind', Source: '/data/x', Target: '/x', ReadOnly: true }] }],
    [
      'a writable entry itself, writable',
      { Binds: ['/scratch:/s', '/scratch/:/t:rw'], Mounts: [{ Type: 'bind', Source: '/scratch', Target: '/m' }] },
    ],
  ])('allows %s', (_what, host) => {
    expect(judge(create(host))).toBe('allowed');
  });
});

describe('hole 7: seccomp and AppArmor profiles', () => {
  it.each([
    [
      'an inline allow-all profile',
      [`seccomp=${ALLOW_ALL}`],
      `HostConfig.SecurityOpt[0]: an inline profile (${profileDigest(ALLOW_ALL)}) the operator did not list`,
    ],
    ['the same, the old : form', [`seccomp:${ALLOW_ALL.replaceAll(' ', '')}`], 'HostConfig.SecurityOpt[0]: an inline profile'],
    ['seccomp=unconfined', ['seccomp=unconfined'], 'HostConfig.SecurityOpt[0]: seccomp=unconfined'],
    ['apparmor=unconfined', ['apparmor=unconfined'], 'HostConfig.SecurityOpt[0]: apparmor=unconfined'],
    [
      'an AppArmor profile not listed',
      ['apparmor=lax'],
      'HostConfig.SecurityOpt[0]: profile lax is not one the operator listed (allowedAppArmorProfiles)',
    ],
    ['an option dockerd does not know', ['mystery=1'], 'HostConfig.SecurityOpt[0]: mystery=1'],
  ])('refuses %s', (_what, opts, expected) => {
    expect(judge(create({ SecurityOpt: opts })).startsWith(forbids(expected))).toBe(true);
  });

  it('allows the default, a listed profile whatever its whitespace, a listed AppArmor profile', () => {
    const compacted = OPERATORS.replace(/\s+/g, '');
    expect(judge(create({ SecurityOpt: [`seccomp=${compacted}`, 'apparmor=tenant-profile', 'apparmor=docker-default'] }))).toBe('allowed');
    expect(judge(create({ SecurityOpt: [`seccomp=${OPERATORS}`, 'seccomp=builtin', 'no-new-privileges'] }))).toBe('allowed');
    expect(judge(create({ SecurityOpt: [`seccomp=${ALLOW_ALL}`] }), ROOT)).toBe('allowed');
  });
});

describe('hole 8: cgroup placement', () => {
  it.each([
    ["another container's cgroup", '/docker/0123456789ab', '/docker/0123456789ab is outside /tenants, tenants.slice'],
    ['out of an allowed parent with ..', '/tenants/../docker/x', '/tenants/../docker/x has a .. segment'],
    ['a slice that only starts like one', 'tenantsx.slice', 'tenantsx.slice is outside'],
    ['the system slice', 'system.slice', 'system.slice is outside'],
    [
      'a container under an allowed parent',
      `/tenants/a/${'c0ffee'.repeat(10)}abcd`,
      `/tenants/a/${'c0ffee'.repeat(10)}abcd names a container's own cgroup`,
    ],
  ])('refuses %s', (_what, parent, expected) => {
    expect(judge(create({ CgroupParent: parent })).startsWith(forbids(`HostConfig.CgroupParent: ${expected}`))).toBe(true);
  });

  it.each([['/tenants'], ['tenants/a'], ['/tenants/a/b/'], ['tenants.slice'], ['tenants-a.slice']])('allows %s', (parent) => {
    expect(judge(create({ CgroupParent: parent }))).toBe('allowed');
  });

  it('refuses every parent without allowedCgroupParents, and Cgroup outright', () => {
    const plain = createPolicyController({ options: {}, configDir: '/', logger: noopLogger });
    expect(outcome(plain.admit({ caller: CI, action: 'container.create', config: create({ CgroupParent: '/x' }) }))).toBe(
      forbids('HostConfig.CgroupParent: /x is not allowed (allowedCgroupParents is empty)'),
    );
    expect(judge(create({ Cgroup: 'container:web' }))).toBe(
      forbids("HostConfig.Cgroup: container:web names a cgroup outside the container's own"),
    );
    expect(judge(create({ ...RESTRICTED_OK, CgroupParent: '/docker' }, { User: '1000' }), ALICE)).toBe(
      'admission policy "restricted" forbids HostConfig.CgroupParent: /docker is outside /tenants, tenants.slice',
    );
  });
});
