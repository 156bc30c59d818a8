import { mkdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliResult } from './api-support.js';
import { RawJson, httpsCall, startAccessCluster, type AccessCluster, type Person } from './access-support.js';
import { itJudgedEveryEngineRequest } from './access-invariant.js';

/*
 * Issue #33's admission cases for each PodSecurity level, with the real docker CLI: baseline (the
 * default: alice, team a), restricted (bob, team b) and privileged (the admins), as access-support's
 * config binds them. A refused create says `admission policy "<level>" forbids <field>` and leaves
 * nothing behind; an allowed one is created. Updates and what an exec or a volume could do around
 * the policy too.
 *
 * Engines 218-219; manager on 27430.
 */

const PORT = 27430;
let cluster: AccessCluster;

const BOB_OK = ['--user', '1000', '--security-opt', 'no-new-privileges', '-m', '64m', '--cpus', '0.5'];
const IMAGE = ['busybox:local', 'sleep', '600'];

/** Names of the containers the cases made or tried to make, and whether each should exist. */
const expected = new Map<string, boolean>();
let counter = 0;

async function ok(person: Person, args: string[]): Promise<string> {
  const result = await cluster.as(person, args);
  if (result.code !== 0) throw new Error(`docker ${args.join(' ')} as ${person} failed (${result.code}): ${result.stderr}`);
  return result.stdout.trim();
}

/** `docker create` as a person with `flags`, under a name of its own; records whether it should exist. */
async function create(person: Person, flags: string[], allowed: boolean): Promise<CliResult> {
  const name = `adm-${person}-${++counter}`;
  expected.set(name, allowed);
  return cluster.as(person, ['create', '--pull', 'never', '--name', name, ...flags, ...IMAGE]);
}

function forbids(level: string, field: string): string {
  return `Error response from daemon: admission policy "${level}" forbids ${field}`;
}

beforeAll(async () => {
  // the allowed host path exists on the engines' host (this machine), as a bind mount needs
  mkdirSync('/tmp/swarm-access-data', { recursive: true });
  cluster = await startAccessCluster({ firstEngine: 218, engines: 2, port: PORT, recordEngines: true });
  await Promise.all([
    ok('alice', ['run', '-d', '--name', 'adm-alice-app', ...IMAGE]),
    ok('bob', ['run', '-d', '--name', 'adm-bob-app', ...BOB_OK, ...IMAGE]),
  ]);
  expected.set('adm-alice-app', true);
  expected.set('adm-bob-app', true);
}, 180_000);

afterAll(async () => {
  await cluster?.stop();
});

// [what, flags, the field the refusal names]
const BASELINE_REFUSED: ReadonlyArray<readonly [string, string[], string]> = [
  ['--privileged', ['--privileged'], 'HostConfig.Privileged'],
  ['--net host', ['--net', 'host'], 'HostConfig.NetworkMode=host'],
  ['--pid host', ['--pid', 'host'], 'HostConfig.PidMode=host'],
  ['--ipc host', ['--ipc', 'host'], 'HostConfig.IpcMode=host'],
  ['--uts host', ['--uts', 'host'], 'HostConfig.UTSMode=host'],
  ['--userns host', ['--userns', 'host'], 'HostConfig.UsernsMode=host'],
  ['--cgroupns host', ['--cgroupns', 'host'], 'HostConfig.CgroupnsMode=host'],
  ['-v /etc:/x', ['-v', '/etc:/x'], 'HostConfig.Binds[0]: /etc is outside /tmp/swarm-access-data'],
  ['-v /:/host', ['-v', '/:/host'], 'HostConfig.Binds[0]: / is outside /tmp/swarm-access-data'],
  [
    '-v <allowed>/../../etc:/x (climbs out)',
    ['-v', '/tmp/swarm-access-data/../../etc:/x:ro'],
    'HostConfig.Binds[0]: /tmp/swarm-access-data/../../etc has a .. segment',
  ],
  [
    '-v /tmp/swarm-access-database:/x (not a whole segment)',
    ['-v', '/tmp/swarm-access-database:/x'],
    'HostConfig.Binds[0]: /tmp/swarm-access-database is outside /tmp/swarm-access-data',
  ],
  [
    '--mount type=bind,src=/etc',
    ['--mount', 'type=bind,src=/etc,dst=/x'],
    'HostConfig.Mounts[0].Source: /etc is outside /tmp/swarm-access-data',
  ],
  [
    '--mount type=volume with o=bind,device=/etc',
    ['--mount', 'type=volume,src=etc-by-mount,dst=/x,volume-opt=type=none,volume-opt=o=bind,volume-opt=device=/etc'],
    'HostConfig.Mounts[0].VolumeOptions.DriverConfig.Options.device: /etc is outside /tmp/swarm-access-data',
  ],
  [
    '-v <allowed>:/x:ro,rshared (propagation)',
    ['-v', '/tmp/swarm-access-data/p:/p:ro,rshared'],
    "HostConfig.Binds[0]: rshared propagation reaches the host's mounts",
  ],
  [
    '-v <allowed>:/x (writable under a read-only entry)',
    ['-v', '/tmp/swarm-access-data/x:/x'],
    'HostConfig.Binds[0]: /tmp/swarm-access-data/x is under /tmp/swarm-access-data, which is allowed read-only (add :ro)',
  ],
  ['--device /dev/null', ['--device', '/dev/null'], 'HostConfig.Devices[0]: /dev/null'],
  ['--device-cgroup-rule', ['--device-cgroup-rule', 'c 1:3 mr'], 'HostConfig.DeviceCgroupRules[0]'],
  ['--cap-add SYS_ADMIN', ['--cap-add', 'SYS_ADMIN'], "HostConfig.CapAdd[0]: SYS_ADMIN is not in Docker's default set"],
  ['--cap-add cap_sys_admin', ['--cap-add', 'cap_sys_admin'], 'HostConfig.CapAdd[0]'],
  ['--cap-add ALL', ['--cap-add', 'ALL'], 'HostConfig.CapAdd[0]: ALL adds every capability'],
  ['--security-opt seccomp=unconfined', ['--security-opt', 'seccomp=unconfined'], 'HostConfig.SecurityOpt[0]: seccomp=unconfined'],
  ['--security-opt apparmor=unconfined', ['--security-opt', 'apparmor=unconfined'], 'HostConfig.SecurityOpt[0]: apparmor=unconfined'],
  ['--security-opt label=disable', ['--security-opt', 'label=disable'], 'HostConfig.SecurityOpt[0]: label=disable'],
  [
    '--security-opt systempaths=unconfined',
    ['--security-opt', 'systempaths=unconfined'],
    'HostConfig.MaskedPaths: it leaves out /proc/acpi',
  ],
  ['--sysctl kernel.msgmax=1', ['--sysctl', 'kernel.msgmax=1'], 'HostConfig.Sysctls["kernel.msgmax"]: not in the safe set'],
];

const BASELINE_ALLOWED: ReadonlyArray<readonly [string, string[]]> = [
  ['nothing special', []],
  ['-v /tmp/swarm-access-data/x:/x:ro', ['-v', '/tmp/swarm-access-data/x:/x:ro']],
  ['--mount type=bind,src=/tmp/swarm-access-data,readonly', ['--mount', 'type=bind,src=/tmp/swarm-access-data,dst=/x,readonly']],
  ['-v a named volume', ['-v', 'adm-alice-data:/data']],
  ['--cap-add CHOWN (in the default set)', ['--cap-add', 'CHOWN']],
  ['--cap-add NET_BIND_SERVICE', ['--cap-add', 'NET_BIND_SERVICE']],
  ['--network container:<her own>', ['--network', 'container:adm-alice-app']],
  // the dependency filter places by --net container: only, so the affinity puts it beside hers
  ['--pid container:<her own>', ['--pid', 'container:adm-alice-app', '-e', 'affinity:container==adm-alice-app']],
  ['--security-opt no-new-privileges', ['--security-opt', 'no-new-privileges']],
  ['--sysctl net.ipv4.ip_unprivileged_port_start=0 (safe)', ['--sysctl', 'net.ipv4.ip_unprivileged_port_start=0']],
  ['--user 0', ['--user', '0']],
];

describe('baseline (the default level: alice, team a)', () => {
  it.each(BASELINE_REFUSED)('refuses %s', async (_, flags, field) => {
    const result = await create('alice', flags, false);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(forbids('baseline', field));
  });
  it.each(BASELINE_ALLOWED)('allows %s', async (_, flags) => {
    const result = await create('alice', flags, true);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  });
  it('amy (team a too) is refused the same way', async () => {
    const result = await create('amy', ['--privileged'], false);
    expect(result.stderr).toContain(forbids('baseline', 'HostConfig.Privileged'));
  });
});

const RESTRICTED_REFUSED: ReadonlyArray<readonly [string, string[], string]> = [
  [
    'no --user',
    ['--security-opt', 'no-new-privileges', '-m', '64m', '--cpus', '0.5'],
    'User unset: the image may run as root; give a UID (--user 1000)',
  ],
  ['--user 0', ['--user', '0', '--security-opt', 'no-new-privileges', '-m', '64m', '--cpus', '0.5'], 'User: 0 is root'],
  ['--user root (a name)', ['--user', 'root', '--security-opt', 'no-new-privileges', '-m', '64m', '--cpus', '0.5'], 'User: root is root'],
  [
    '--user app (a name the manager cannot resolve)',
    ['--user', 'app', '--security-opt', 'no-new-privileges', '-m', '64m', '--cpus', '0.5'],
    'User',
  ],
  [
    'no no-new-privileges',
    ['--user', '1000', '-m', '64m', '--cpus', '0.5'],
    'HostConfig.SecurityOpt without no-new-privileges (--security-opt no-new-privileges)',
  ],
  [
    'no-new-privileges turned off again',
    ['--user', '1000', '--security-opt', 'no-new-privileges', '--security-opt', 'no-new-privileges=false', '-m', '64m', '--cpus', '0.5'],
    'HostConfig.SecurityOpt',
  ],
  [
    'no -m',
    ['--user', '1000', '--security-opt', 'no-new-privileges', '--cpus', '0.5'],
    'HostConfig.Memory unset: restricted needs a memory limit (--memory)',
  ],
  [
    'no --cpus',
    ['--user', '1000', '--security-opt', 'no-new-privileges', '-m', '64m'],
    'HostConfig.NanoCpus unset: restricted needs a CPU limit (--cpus or --cpu-quota)',
  ],
  ['--cap-add NET_ADMIN', [...BOB_OK, '--cap-add', 'NET_ADMIN'], "HostConfig.CapAdd[0]: NET_ADMIN is not in Docker's default set"],
  ['--cap-add CHOWN (baseline would allow it)', [...BOB_OK, '--cap-add', 'CHOWN'], 'HostConfig.CapAdd[0]'],
  ['--privileged', [...BOB_OK, '--privileged'], 'HostConfig.Privileged'],
  ['--net host', [...BOB_OK, '--net', 'host'], 'HostConfig.NetworkMode=host'],
  ['-v /etc:/x', [...BOB_OK, '-v', '/etc:/x'], 'HostConfig.Binds[0]: /etc is outside /tmp/swarm-access-data'],
];

const RESTRICTED_ALLOWED: ReadonlyArray<readonly [string, string[]]> = [
  ['--user 1000 --security-opt no-new-privileges -m --cpus', BOB_OK],
  ['--cpu-quota instead of --cpus', ['--user', '1000', '--security-opt', 'no-new-privileges', '-m', '64m', '--cpu-quota', '50000']],
  ['--user 1000:0 (group 0)', ['--user', '1000:0', '--security-opt', 'no-new-privileges', '-m', '64m', '--cpus', '0.5']],
  ['--security-opt no-new-privileges=true', ['--user', '1000', '--security-opt', 'no-new-privileges=true', '-m', '64m', '--cpus', '0.5']],
  ['--cap-add NET_BIND_SERVICE', [...BOB_OK, '--cap-add', 'NET_BIND_SERVICE']],
  ['-v /tmp/swarm-access-data/b:/b:ro', [...BOB_OK, '-v', '/tmp/swarm-access-data/b:/b:ro']],
];

describe('restricted (bob, team b)', () => {
  it.each(RESTRICTED_REFUSED)('refuses %s', async (_, flags, field) => {
    const result = await create('bob', flags, false);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(forbids('restricted', field));
  });
  it.each(RESTRICTED_ALLOWED)('allows %s', async (_, flags) => {
    const result = await create('bob', flags, true);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  });
});

describe('privileged (the admins): anything goes', () => {
  const ANYTHING: ReadonlyArray<readonly [string, string[]]> = [
    ['--privileged', ['--privileged']],
    ['--net host --pid host --ipc host --uts host', ['--net', 'host', '--pid', 'host', '--ipc', 'host', '--uts', 'host']],
    ['-v /etc:/x:ro', ['-v', '/etc:/x:ro']],
    ['--cap-add ALL', ['--cap-add', 'ALL']],
    ['--device /dev/null', ['--device', '/dev/null']],
    [
      '--security-opt seccomp=unconfined --security-opt apparmor=unconfined',
      ['--security-opt', 'seccomp=unconfined', '--security-opt', 'apparmor=unconfined'],
    ],
    ['--sysctl kernel.msgmax=65536', ['--sysctl', 'kernel.msgmax=65536']],
  ];
  it.each(ANYTHING)('allows %s', async (_, flags) => {
    const result = await create('admin', flags, true);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  });
});

describe('updates (docker update: only what it changes is judged)', () => {
  it('restricted: --memory 0 leaves the limit as it is, and is allowed', async () => {
    const result = await cluster.as('bob', ['update', '--memory', '0', 'adm-bob-app']);
    expect(result.stderr).toBe('');
    expect(await ok('bob', ['container', 'inspect', '-f', '{{.HostConfig.Memory}} {{.HostConfig.NanoCpus}}', 'adm-bob-app'])).toBe(
      '67108864 500000000',
    );
  });
  it('restricted: --memory 128m (another limit) is allowed', async () => {
    const result = await cluster.as('bob', ['update', '--memory', '128m', '--memory-swap', '256m', 'adm-bob-app']);
    expect(result.stderr).toBe('');
    expect(await ok('bob', ['container', 'inspect', '-f', '{{.HostConfig.Memory}}', 'adm-bob-app'])).toBe('134217728');
  });
  it('restricted: --cpu-quota -1 (lifting the limit) is refused', async () => {
    const result = await cluster.as('bob', ['update', '--cpu-quota', '-1', 'adm-bob-app']);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(forbids('restricted', 'HostConfig.CpuQuota: -1 removes the limit restricted needs'));
  });
  it('restricted: Memory -1 through the API is refused', async () => {
    const answer = await cluster.call('bob', 'POST', '/v1.41/containers/adm-bob-app/update', { Memory: -1 });
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.text).message).toBe(
      'admission policy "restricted" forbids HostConfig.Memory: -1 removes the limit restricted needs',
    );
  });
  it('baseline: --cpu-quota -1 is allowed (baseline needs no limits)', async () => {
    const result = await cluster.as('alice', ['update', '--cpu-quota', '-1', 'adm-alice-app']);
    expect(result.stderr).toBe('');
  });
  it('baseline: Devices in an update body are not judged, and dockerd does not apply them', async () => {
    const answer = await cluster.call('alice', 'POST', '/v1.41/containers/adm-alice-app/update', {
      Devices: [{ PathOnHost: '/dev/null', PathInContainer: '/dev/x', CgroupPermissions: 'rwm' }],
    });
    expect(answer.status).toBe(200);
  });
  it('nothing was changed by the refused (and the ignored) updates', async () => {
    expect(await ok('admin', ['container', 'inspect', '-f', '{{.HostConfig.CpuQuota}} {{json .HostConfig.Devices}}', 'adm-bob-app'])).toBe(
      '0 []',
    );
    expect(await ok('admin', ['container', 'inspect', '-f', '{{json .HostConfig.Devices}}', 'adm-alice-app'])).toBe('[]');
  });
});

describe('around the policy', () => {
  it('baseline: docker exec --privileged is refused as --privileged is', async () => {
    const result = await cluster.as('alice', ['exec', '--privileged', 'adm-alice-app', 'echo', 'privileged']);
    expect(result.code).not.toBe(0);
    expect(result.stdout).not.toContain('privileged');
    expect(result.stderr).toMatch(/Error response from daemon: admission policy "baseline" forbids \S*Privileged/);
  });
  it('restricted: docker exec -u 0 is refused as --user 0 is', async () => {
    const result = await cluster.as('bob', ['exec', '-u', '0', 'adm-bob-app', 'sh', '-c', 'grep Uid /proc/self/status']);
    expect(result.stdout).not.toMatch(/Uid:\s+0\b/);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/Error response from daemon: admission policy "restricted" forbids \S*User/);
  });
  it('restricted: docker exec as the container’s own user is allowed', async () => {
    const result = await cluster.as('bob', ['exec', 'adm-bob-app', 'sh', '-c', 'grep Uid /proc/self/status']);
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(/Uid:\s+1000\b/);
  });
  it('baseline: a local volume binding /etc (volume create -o o=bind) is refused, so no container can mount it', async () => {
    const made = await cluster.as('alice', ['volume', 'create', '-o', 'type=none', '-o', 'o=bind', '-o', 'device=/etc', 'adm-etc']);
    const read = await cluster.as('alice', ['run', '--rm', '--pull', 'never', '-v', 'adm-etc:/x', 'busybox:local', 'cat', '/x/hostname']);
    // what a container sees at /x must not be the host's /etc
    const hostname = (await import('node:os')).hostname();
    expect(read.stdout.trim()).not.toBe(hostname);
    expect(made.code).not.toBe(0);
    expect(made.stderr).toMatch(/Error response from daemon: .*(admission policy "baseline" forbids|may not volume.create).*\/etc/);
  });
  it('restricted: a bind volume is refused too', async () => {
    const made = await cluster.as('bob', ['volume', 'create', '-o', 'type=none', '-o', 'o=bind', '-o', 'device=/etc', 'adm-etc-b']);
    expect(made.code).not.toBe(0);
  });
  it('privileged: an admin may create one', async () => {
    const made = await cluster.as('admin', ['volume', 'create', '-o', 'type=none', '-o', 'o=bind', '-o', 'device=/etc', 'adm-etc-admin']);
    expect(made.stderr).toBe('');
  });
});

/** A create with a body written by hand (JSON that dockerd reads differently from JSON.parse). */
function rawCreate(
  person: Person,
  name: string,
  body: string,
  path = `/v1.41/containers/create?name=${name}`,
): Promise<{ status: number; text: string }> {
  return httpsCall(cluster.dir, PORT, person, 'POST', path, new RawJson(body));
}

// dockerd decodes JSON with Go's encoding/json: object keys match struct fields whatever their case,
// and a key given twice is decoded twice into the same struct. A field admission does not see under
// those spellings must not reach the engine: the create is refused, or runs without it.
const SPELLINGS: ReadonlyArray<readonly [string, string, string]> = [
  [
    '"hostconfig" (lower case)',
    '{"Image":"busybox:local","Cmd":["sleep","600"],"hostconfig":{"Privileged":true}}',
    '{{.HostConfig.Privileged}}',
  ],
  [
    '"HostConfig":{"privileged":true} (lower case field)',
    '{"Image":"busybox:local","Cmd":["sleep","600"],"HostConfig":{"privileged":true}}',
    '{{.HostConfig.Privileged}}',
  ],
  [
    '"HostConfig":{"binds":["/etc:/x"]}',
    '{"Image":"busybox:local","Cmd":["sleep","600"],"HostConfig":{"binds":["/etc:/x"]}}',
    '{{json .HostConfig.Binds}}',
  ],
  [
    '"HostConfig" twice (privileged first)',
    '{"Image":"busybox:local","Cmd":["sleep","600"],"HostConfig":{"Privileged":true},"HostConfig":{"Memory":0}}',
    '{{.HostConfig.Privileged}}',
  ],
  [
    '"Privileged" twice in HostConfig',
    '{"Image":"busybox:local","Cmd":["sleep","600"],"HostConfig":{"Privileged":true,"Privileged":false}}',
    '{{.HostConfig.Privileged}}',
  ],
];
const SAFE: Readonly<Record<string, string>> = { '{{.HostConfig.Privileged}}': 'false', '{{json .HostConfig.Binds}}': 'null' };

describe('JSON that dockerd reads differently from JSON.parse (baseline: alice)', () => {
  it.each(SPELLINGS)('%s is refused, or created without the field', async (what, body, field) => {
    const name = `adm-spelling-${SPELLINGS.findIndex(([w]) => w === what)}`;
    const answer = await rawCreate('alice', name, body);
    if (answer.status >= 400) {
      expected.set(name, false);
      return;
    }
    expected.set(name, true);
    expect(await ok('admin', ['container', 'inspect', '-f', field, name])).toBe(SAFE[field]);
  });
});

describe('an update spelt as dockerd reads it (restricted: bob)', () => {
  it('"cpuquota": -1 is refused, or leaves the limit', async () => {
    await ok('bob', [
      'run',
      '-d',
      '--name',
      'adm-bob-update',
      '--cpu-quota',
      '50000',
      '--user',
      '1000',
      '--security-opt',
      'no-new-privileges',
      '-m',
      '64m',
      ...IMAGE,
    ]);
    expected.set('adm-bob-update', true);
    const answer = await rawCreate('bob', 'adm-bob-update', '{"cpuquota":-1}', '/v1.41/containers/adm-bob-update/update');
    if (answer.status < 400)
      expect(await ok('admin', ['container', 'inspect', '-f', '{{.HostConfig.CpuQuota}}', 'adm-bob-update'])).toBe('50000');
  });
});

describe('an exec spelt as dockerd reads it', () => {
  const execWith = async (person: Person, container: string, body: string) => {
    const made = await rawCreate(person, container, body, `/v1.41/containers/${container}/exec`);
    if (made.status >= 400) return undefined;
    const id = (JSON.parse(made.text) as { Id: string }).Id;
    const inspect = await cluster.call('admin', 'GET', `/v1.41/exec/${id}/json`);
    return (JSON.parse(inspect.text) as { ProcessConfig: { privileged: boolean; user: string } }).ProcessConfig;
  };
  it('baseline: "privileged": true (lower case) is refused, or makes an unprivileged exec', async () => {
    const config = await execWith('alice', 'adm-alice-app', '{"Cmd":["true"],"privileged":true}');
    if (config) expect(config.privileged).toBe(false);
  });
  it('restricted: "user": "0" (lower case) is refused, or makes an exec as the container’s user', async () => {
    const config = await execWith('bob', 'adm-bob-app', '{"Cmd":["true"],"user":"0"}');
    if (config) expect(config.user).not.toBe('0');
  });
});

describe('what the refusals left behind', () => {
  it('every refused create made nothing, every allowed one a container', async () => {
    const names = new Set(
      (await ok('admin', ['ps', '-a', '--filter', 'name=adm-', '--format', '{{.Names}}']))
        .split('\n')
        .map((name) => name.replace(/^node\d+\//, '')),
    );
    const wrong = [...expected]
      .filter(([name, should]) => names.has(name) !== should)
      .map(([name, should]) => `${name}: ${should ? 'missing' : 'created'}`);
    expect(wrong).toEqual([]);
  });
});

itJudgedEveryEngineRequest('access-admission', () => cluster);
