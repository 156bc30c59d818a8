import { describe, expect, it } from 'vitest';
import { SYSTEM_PATH_DEFAULTS, profileDigest } from '@swarm/admission-policy';
import { ANONYMOUS, CI, admit, create, outcome } from './support.js';

/** [what, HostConfig, the 403's text or 'allowed'], judged for the anonymous caller (the default level, baseline). */
type Case = readonly [string, Record<string, unknown>, string];

const OUTSIDE = 'is outside /data, /var/log/apps';
const forbids = (rest: string) => `admission policy "baseline" forbids ${rest}`;

function cases(title: string, table: readonly Case[]): void {
  describe(title, () => {
    it.each(table)('%s', (_what, host, expected) => {
      expect(outcome(admit(ANONYMOUS, create(host)))).toBe(expected);
    });
  });
}

cases('privileged', [
  ['a plain docker run', {}, 'allowed'],
  ['--privileged', { Privileged: true }, forbids('HostConfig.Privileged')],
  ['Privileged false', { Privileged: false }, 'allowed'],
]);

cases('host namespaces', [
  ['--net host', { NetworkMode: 'host' }, forbids('HostConfig.NetworkMode=host')],
  ['--pid host', { PidMode: 'host' }, forbids('HostConfig.PidMode=host')],
  ['--ipc host', { IpcMode: 'host' }, forbids('HostConfig.IpcMode=host')],
  ['--uts host', { UTSMode: 'host' }, forbids('HostConfig.UTSMode=host')],
  ['--userns host', { UsernsMode: 'host' }, forbids('HostConfig.UsernsMode=host')],
  ['--cgroupns host', { CgroupnsMode: 'host' }, forbids('HostConfig.CgroupnsMode=host')],
  ['--net bridge', { NetworkMode: 'bridge' }, 'allowed'],
  ["another container's namespaces", { NetworkMode: 'container:web', PidMode: 'container:web', IpcMode: 'shareable' }, 'allowed'],
]);

cases('bind mounts', [
  ['outside the prefixes', { Binds: ['/etc:/host-etc:ro'] }, forbids(`HostConfig.Binds[0]: /etc ${OUTSIDE}`)],
  [
    '.. out of a prefix',
    { Binds: ['/data/../etc:/x:ro'] },
    forbids('HostConfig.Binds[0]: /data/../etc has a .. segment, which the host resolves after any symbolic link before it'),
  ],
  [
    '.. that stays in a prefix (after a link it may not)',
    { Binds: ['/data/link/../x:/x:ro'] },
    forbids('HostConfig.Binds[0]: /data/link/../x has a .. segment, which the host resolves after any symbolic link before it'),
  ],
  ['a name that only starts like a prefix', { Binds: ['/database:/x'] }, forbids(`HostConfig.Binds[0]: /database ${OUTSIDE}`)],
  ['the root', { Binds: ['/:/host'] }, forbids(`HostConfig.Binds[0]: / ${OUTSIDE}`)],
  [
    'the second entry',
    { Binds: ['cache:/cache', '/var/run/docker.sock:/var/run/docker.sock'] },
    forbids(`HostConfig.Binds[1]: /var/run/docker.sock ${OUTSIDE}`),
  ],
  ['a Windows path', { Binds: ['C:\\Windows:C:\\w'] }, forbids(`HostConfig.Binds[0]: C:\\Windows ${OUTSIDE}`)],
  ['a prefix itself, read-only', { Binds: ['/data:/data:ro'] }, 'allowed'],
  ['under a prefix, with modes', { Binds: ['/data/app:/app:ro,z', '/var/log/apps/web/:/logs:ro'] }, 'allowed'],
  ['a prefix spelled untidily', { Binds: ['/data//app/./x:/app:ro'] }, 'allowed'],
  [
    'writable under a read-only entry',
    { Binds: ['/data/app:/app'] },
    forbids('HostConfig.Binds[0]: /data/app is under /data, which is allowed read-only (add :ro)'),
  ],
  [
    'rw under a read-only entry',
    { Binds: ['/data/app:/app:rw,z'] },
    forbids('HostConfig.Binds[0]: /data/app is under /data, which is allowed read-only (add :ro)'),
  ],
  [
    'ro-non-recursive (its submounts stay writable)',
    { Binds: ['/data/app:/app:ro-non-recursive'] },
    forbids('HostConfig.Binds[0]: /data/app is under /data, which is allowed read-only (add :ro)'),
  ],
  ['named volumes', { Binds: ['cache:/cache', 'my_vol.1:/v:ro'] }, 'allowed'],
  ['anonymous volumes', { Binds: ['/scratch', '/scratch2:ro'] }, 'allowed'],
  [
    'shared propagation',
    { Binds: ['/data:/data:ro,rshared'] },
    forbids("HostConfig.Binds[0]: rshared propagation reaches the host's mounts"),
  ],
  ['slave propagation', { Binds: ['/data:/data:ro,rslave'] }, 'allowed'],
]);

cases('mounts', [
  ['a bind outside', { Mounts: [{ Type: 'bind', Source: '/etc', Target: '/e' }] }, forbids(`HostConfig.Mounts[0].Source: /etc ${OUTSIDE}`)],
  ['a bind under a prefix', { Mounts: [{ Type: 'bind', Source: '/data/x', Target: '/x', ReadOnly: true }] }, 'allowed'],
  ['a bind without a source', { Mounts: [{ Type: 'bind', Target: '/x' }] }, forbids('HostConfig.Mounts[0].Source: no source path')],
  [
    'a bind with shared propagation',
    { Mounts: [{ Type: 'bind', Source: '/data', Target: '/d', ReadOnly: true, BindOptions: { Propagation: 'shared' } }] },
    forbids("HostConfig.Mounts[0].BindOptions.Propagation: shared propagation reaches the host's mounts"),
  ],
  [
    'a local volume that binds a host path',
    {
      Mounts: [
        {
          Type: 'volume',
          Target: '/e',
          VolumeOptions: { DriverConfig: { Name: 'local', Options: { type: 'none', o: 'bind', device: '/etc' } } },
        },
      ],
    },
    forbids(`HostConfig.Mounts[0].VolumeOptions.DriverConfig.Options.device: /etc ${OUTSIDE}`),
  ],
  [
    'a local volume over a host block device',
    { Mounts: [{ Type: 'volume', Target: '/d', VolumeOptions: { DriverConfig: { Options: { type: 'ext4', device: '/dev/sdb1' } } } }] },
    forbids(
      "HostConfig.Mounts[0].VolumeOptions.DriverConfig.Options.type: ext4 mounts what the engine's host has (baseline allows tmpfs, size, and o=bind under allowedHostPaths)",
    ),
  ],
  [
    'a local volume that binds under a prefix',
    {
      Mounts: [
        { Type: 'volume', Target: '/d', VolumeOptions: { DriverConfig: { Options: { type: 'none', o: 'bind,ro', device: '/data/v' } } } },
      ],
    },
    'allowed',
  ],
  [
    'a local volume that binds under a prefix, writable',
    {
      Mounts: [
        { Type: 'volume', Target: '/d', VolumeOptions: { DriverConfig: { Options: { type: 'none', o: 'bind', device: '/data/v' } } } },
      ],
    },
    forbids('HostConfig.Mounts[0].VolumeOptions.DriverConfig.Options.o: /data/v is under /data, which is allowed read-only (add ro to o)'),
  ],
  [
    'NFS and CIFS volumes',
    {
      Mounts: [
        {
          Type: 'volume',
          Target: '/n',
          VolumeOptions: { DriverConfig: { Options: { type: 'nfs', o: 'addr=10.0.0.1', device: ':/export' } } },
        },
        { Type: 'volume', Target: '/c', VolumeOptions: { DriverConfig: { Options: { type: 'cifs', device: '//server/share' } } } },
      ],
    },
    forbids(
      "HostConfig.Mounts[0].VolumeOptions.DriverConfig.Options.type: nfs reaches the network from the engine's host (baseline allows tmpfs, size, and o=bind under allowedHostPaths)",
    ),
  ],
  [
    'a named volume and a tmpfs',
    {
      Mounts: [
        { Type: 'volume', Source: 'cache', Target: '/c' },
        { Type: 'tmpfs', Target: '/t' },
      ],
    },
    'allowed',
  ],
  [
    'a named pipe',
    { Mounts: [{ Type: 'npipe', Source: '\\\\.\\pipe\\docker_engine', Target: '\\\\.\\pipe\\d' }] },
    forbids('HostConfig.Mounts[0].Source: named pipe \\\\.\\pipe\\docker_engine is on the host'),
  ],
]);

cases('devices', [
  [
    '--device',
    { Devices: [{ PathOnHost: '/dev/sda', PathInContainer: '/dev/sda', CgroupPermissions: 'rwm' }] },
    forbids('HostConfig.Devices[0]: /dev/sda'),
  ],
  ['--device-cgroup-rule', { DeviceCgroupRules: ['c *:* rwm'] }, forbids('HostConfig.DeviceCgroupRules[0]: c *:* rwm')],
  ['--gpus all', { DeviceRequests: [{ Driver: '', Count: -1, Capabilities: [['gpu']] }] }, 'allowed'],
  [
    '--device with a CDI name',
    {
      DeviceRequests: [
        { Driver: 'nvidia', Count: 1 },
        { Driver: 'cdi', DeviceIDs: ['nvidia.com/gpu=all'] },
      ],
    },
    forbids('HostConfig.DeviceRequests[1]: CDI nvidia.com/gpu=all'),
  ],
  ['empty lists (as the CLI sends them)', { Devices: [], DeviceCgroupRules: null, DeviceRequests: null }, 'allowed'],
]);

cases('capabilities', [
  ["Docker's defaults, however spelled", { CapAdd: ['CHOWN', 'cap_net_raw', 'CAP_KILL', ' setuid '] }, 'allowed'],
  ['one beyond them', { CapAdd: ['CHOWN', 'SYS_ADMIN'] }, forbids("HostConfig.CapAdd[1]: SYS_ADMIN is not in Docker's default set")],
  [
    'with the CAP_ prefix, lower case',
    { CapAdd: ['cap_sys_ptrace'] },
    forbids("HostConfig.CapAdd[0]: SYS_PTRACE is not in Docker's default set"),
  ],
  ['ALL', { CapAdd: ['all'] }, forbids('HostConfig.CapAdd[0]: ALL adds every capability')],
  ['dropping is always fine', { CapDrop: ['ALL'] }, 'allowed'],
]);

cases('security options', [
  ['seccomp=unconfined', { SecurityOpt: ['seccomp=unconfined'] }, forbids('HostConfig.SecurityOpt[0]: seccomp=unconfined')],
  [
    'seccomp:unconfined (the old syntax)',
    { SecurityOpt: ['label=level:s0', 'seccomp:unconfined'] },
    forbids('HostConfig.SecurityOpt[1]: seccomp:unconfined'),
  ],
  [
    'an inline seccomp profile',
    { SecurityOpt: ['seccomp={"defaultAction":"SCMP_ACT_ALLOW"}'] },
    forbids(
      `HostConfig.SecurityOpt[0]: an inline profile (${profileDigest('{"defaultAction":"SCMP_ACT_ALLOW"}')}) the operator did not list (allowedSeccompProfiles)`,
    ),
  ],
  ["the engine's default profile", { SecurityOpt: ['seccomp=builtin', 'seccomp='] }, 'allowed'],
  ['apparmor=unconfined', { SecurityOpt: ['apparmor=unconfined'] }, forbids('HostConfig.SecurityOpt[0]: apparmor=unconfined')],
  ['apparmor:unconfined', { SecurityOpt: ['apparmor:unconfined'] }, forbids('HostConfig.SecurityOpt[0]: apparmor:unconfined')],
  ['an AppArmor profile', { SecurityOpt: ['apparmor=docker-default'] }, 'allowed'],
  ['systempaths=unconfined', { SecurityOpt: ['systempaths=unconfined'] }, forbids('HostConfig.SecurityOpt[0]: systempaths=unconfined')],
  ['label=disable', { SecurityOpt: ['label=disable'] }, forbids('HostConfig.SecurityOpt[0]: label=disable')],
  ['label:disable', { SecurityOpt: ['label:disable'] }, forbids('HostConfig.SecurityOpt[0]: label:disable')],
  ['disable (the bare word)', { SecurityOpt: ['disable'] }, forbids('HostConfig.SecurityOpt[0]: disable')],
  ['an SELinux user', { SecurityOpt: ['label=user:system_u'] }, forbids('HostConfig.SecurityOpt[0]: label=user:system_u')],
  ['an SELinux role', { SecurityOpt: ['label=role:system_r'] }, forbids('HostConfig.SecurityOpt[0]: label=role:system_r')],
  [
    'an SELinux type beyond the container ones',
    { SecurityOpt: ['label=type:spc_t'] },
    forbids('HostConfig.SecurityOpt[0]: label=type:spc_t'),
  ],
  [
    'container SELinux types and levels',
    { SecurityOpt: ['label=type:container_t', 'label:level:s0:c1,c2', 'label=type:container_init_t'] },
    'allowed',
  ],
  ['writable-cgroups=true', { SecurityOpt: ['writable-cgroups=true'] }, forbids('HostConfig.SecurityOpt[0]: writable-cgroups=true')],
  ['writable-cgroups=false', { SecurityOpt: ['writable-cgroups=false'] }, 'allowed'],
  ['no-new-privileges', { SecurityOpt: ['no-new-privileges'] }, 'allowed'],
]);

cases('masked and read-only paths', [
  [
    'no masked paths (systempaths=unconfined as the CLI sends it)',
    { MaskedPaths: [], ReadonlyPaths: [] },
    forbids('HostConfig.MaskedPaths: it leaves out /proc/acpi'),
  ],
  ['read-only paths left out', { ReadonlyPaths: ['/proc/bus'] }, forbids('HostConfig.ReadonlyPaths: it leaves out /proc/fs')],
  [
    'the defaults and more',
    {
      MaskedPaths: [...SYSTEM_PATH_DEFAULTS.MaskedPaths, '/proc/asound', '/secret'],
      ReadonlyPaths: SYSTEM_PATH_DEFAULTS.ReadonlyPaths,
    },
    'allowed',
  ],
  ['null (the engine defaults)', { MaskedPaths: null, ReadonlyPaths: null }, 'allowed'],
]);

cases('sysctls', [
  [
    'safe ones',
    { Sysctls: { 'net.ipv4.ip_unprivileged_port_start': '0', 'net/ipv4/tcp_syncookies': '1', 'kernel.shm_rmid_forced': '1' } },
    'allowed',
  ],
  [
    'an unsafe one',
    { Sysctls: { 'net.ipv4.tcp_syncookies': '1', 'kernel.msgmax': '65536' } },
    forbids('HostConfig.Sysctls["kernel.msgmax"]: not in the safe set'),
  ],
  [
    'a net one outside the set',
    { Sysctls: { 'net.core.somaxconn': '1024' } },
    forbids('HostConfig.Sysctls["net.core.somaxconn"]: not in the safe set'),
  ],
]);

cases('malformed bodies', [
  ['CapAdd as a string', { CapAdd: 'SYS_ADMIN' }, forbids('HostConfig.CapAdd: expected a list of strings')],
  ['Privileged as a string', { Privileged: 'true' }, forbids('HostConfig.Privileged: expected a boolean')],
  ['Binds with a number', { Binds: ['/data:/d', 7] }, forbids('HostConfig.Binds: expected a list of strings')],
  ['Sysctls as a list', { Sysctls: ['kernel.msgmax=1'] }, forbids('HostConfig.Sysctls: expected an object of strings')],
  ['Mounts of strings', { Mounts: ['/etc:/etc'] }, forbids('HostConfig.Mounts: expected a list of objects')],
]);

describe('baseline as a whole', () => {
  it('reports the first violation in a stable order (privileged, namespaces, paths, devices, capabilities, options)', () => {
    const everything = create({
      CapAdd: ['SYS_ADMIN'],
      Binds: ['/etc:/e'],
      NetworkMode: 'host',
      Privileged: true,
      Devices: [{ PathOnHost: '/dev/kmsg' }],
    });
    expect(outcome(admit(ANONYMOUS, everything))).toBe(forbids('HostConfig.Privileged'));
    expect(outcome(admit(ANONYMOUS, create({ CapAdd: ['SYS_ADMIN'], Binds: ['/etc:/e'] })))).toBe(
      forbids(`HostConfig.Binds[0]: /etc ${OUTSIDE}`),
    );
  });

  it('names the rule in the verdict', () => {
    expect(admit(ANONYMOUS, create({ PidMode: 'host' }))).toEqual({
      allowed: false,
      policy: 'baseline',
      rule: 'host-namespaces',
      field: 'HostConfig.PidMode',
      detail: '=host',
    });
    expect(admit(ANONYMOUS, create({ Privileged: true }))).toEqual({
      allowed: false,
      policy: 'baseline',
      rule: 'privileged',
      field: 'HostConfig.Privileged',
    });
  });

  it('lets a baseline caller run as root without limits, and amends nothing', () => {
    expect(admit(CI, create({}, { User: 'root' }))).toEqual({ allowed: true });
  });

  it('refuses a HostConfig or User of the wrong type', () => {
    expect(outcome(admit(ANONYMOUS, { Image: 'busybox', HostConfig: 'host' }))).toBe(forbids('HostConfig: expected an object'));
    expect(outcome(admit(ANONYMOUS, { Image: 'busybox', User: 0 }))).toBe(forbids('User: expected a string'));
  });

  it('allows no host path at all without allowedHostPaths', () => {
    const verdict = admit(ANONYMOUS, create({ Binds: ['/data:/d'] }), 'container.create', { default: 'baseline' } as never);
    expect(outcome(verdict)).toBe(forbids('HostConfig.Binds[0]: /data is a host path (none are allowed)'));
  });
});
