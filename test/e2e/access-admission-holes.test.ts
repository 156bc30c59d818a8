import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliResult } from './api-support.js';
import { accessConfig, startAccessCluster, type AccessCluster, type Person } from './access-support.js';
import { itJudgedEveryEngineRequest } from './access-invariant.js';

/*
 * Issue 42's holes 3, 6, 7 and 8 with the real docker CLI through the manager: what a baseline
 * tenant (alice, team a) tried and got, refused with the field named, and the same request as an
 * admin (privileged) doing on these engines what the refusal prevents, so each case shows the hole
 * is real here and closed for the tenant.
 *
 * Engines 174-175; manager on 28300.
 */

const PORT = 28300;
const READ_ONLY = '/tmp/swarm-holes-ro';
const WRITABLE = '/tmp/swarm-holes-rw';
const IMAGE = 'busybox:local';
/** A profile an operator listed: everything but reboot. */
const LISTED_PROFILE = '{\n  "defaultAction": "SCMP_ACT_ALLOW",\n  "syscalls": [{ "names": ["reboot"], "action": "SCMP_ACT_ERRNO" }]\n}\n';
/** What a tenant writes to be unconfined by another name. */
const ALLOW_ALL = '{ "defaultAction": "SCMP_ACT_ALLOW" }\n';

let cluster: AccessCluster;
let dir: string;

function forbids(field: string): string {
  return `Error response from daemon: admission policy "baseline" forbids ${field}`;
}

async function ok(person: Person, args: string[]): Promise<string> {
  const result = await cluster.as(person, args);
  if (result.code !== 0) throw new Error(`docker ${args.join(' ')} as ${person} failed (${result.code}): ${result.stderr}`);
  return result.stdout.trim();
}

/** `docker run --rm` of a shell command as a person. */
const run = (person: Person, flags: string[], script: string): Promise<CliResult> =>
  cluster.as(person, ['run', '--rm', '--pull', 'never', ...flags, IMAGE, 'sh', '-c', script]);

beforeAll(async () => {
  for (const path of [READ_ONLY, WRITABLE]) {
    rmSync(path, { recursive: true, force: true });
    mkdirSync(path, { recursive: true });
  }
  writeFileSync(join(READ_ONLY, 'motd'), 'read me\n');
  cluster = await startAccessCluster({
    firstEngine: 174,
    engines: 2,
    port: PORT,
    recordEngines: true,
    config: (configDir) => {
      writeFileSync(join(configDir, 'listed-seccomp.json'), LISTED_PROFILE);
      const config = accessConfig(undefined) as { access: { admission: unknown } };
      config.access.admission = [
        [
          'policy',
          {
            default: 'baseline',
            bindings: [{ group: 'admins', level: 'privileged' }],
            allowedHostPaths: [READ_ONLY, { path: WRITABLE, readOnly: false }],
            allowedSeccompProfiles: ['listed-seccomp.json'],
            allowedCgroupParents: ['/tenants'],
          },
        ],
      ];
      return config;
    },
  });
  dir = cluster.dir;
}, 180_000);

afterAll(async () => {
  await cluster?.stop();
  for (const path of [READ_ONLY, WRITABLE]) rmSync(path, { recursive: true, force: true });
});

describe('hole 3: local volumes that mount host resources', () => {
  it('volume create -o type=proc -o device=proc is refused; an admin gets the host-wide proc the tenant would have had', async () => {
    const made = await cluster.as('alice', ['volume', 'create', '-o', 'type=proc', '-o', 'device=proc', 'holes-proc']);
    expect(made.code).not.toBe(0);
    expect(made.stderr).toContain(forbids("DriverOpts.type: proc mounts what the engine's host has"));
    expect((await cluster.as('alice', ['volume', 'ls', '-q'])).stdout).not.toContain('holes-proc');
    await ok('admin', ['volume', 'create', '-o', 'type=proc', '-o', 'device=proc', 'holes-proc-admin']);
    // the host's proc: PID 1 there is the machine's init, not the container's sh
    const seen = await run('admin', ['-v', 'holes-proc-admin:/x'], 'cat /x/1/comm; echo; test -e /x/self/environ && echo proc');
    expect(seen.stdout).toContain('proc');
  });

  it.each([
    ['sysfs', ['-o', 'type=sysfs', '-o', 'device=sysfs'], "DriverOpts.type: sysfs mounts what the engine's host has"],
    ['devtmpfs', ['-o', 'type=devtmpfs', '-o', 'device=devtmpfs'], "DriverOpts.type: devtmpfs mounts what the engine's host has"],
    [
      'overlay over host directories',
      ['-o', 'type=overlay', '-o', 'device=overlay', '-o', 'o=lowerdir=/etc,upperdir=/tmp/u,workdir=/tmp/w'],
      "DriverOpts.type: overlay mounts what the engine's host has",
    ],
    [
      'nfs',
      ['-o', 'type=nfs', '-o', 'device=:/export', '-o', 'o=addr=127.0.0.1'],
      "DriverOpts.type: nfs reaches the network from the engine's host",
    ],
    ['a tmpfs that binds /etc', ['-o', 'type=tmpfs', '-o', 'device=/etc', '-o', 'o=bind'], 'DriverOpts.device: /etc is outside'],
  ])('volume create of %s is refused', async (what, options, field) => {
    const result = await cluster.as('alice', ['volume', 'create', ...options, `holes-${what.split(' ')[0]}`]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(forbids(field));
  });

  it('inline --mount type=volume,volume-opt=type=sysfs is refused, and no container or volume is made', async () => {
    const result = await cluster.as('alice', [
      'create',
      '--pull',
      'never',
      '--name',
      'holes-inline-sysfs',
      '--mount',
      'type=volume,src=holes-sysfs-inline,dst=/x,volume-opt=type=sysfs,volume-opt=device=sysfs',
      IMAGE,
    ]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(
      forbids("HostConfig.Mounts[0].VolumeOptions.DriverConfig.Options.type: sysfs mounts what the engine's host has"),
    );
    expect((await cluster.as('admin', ['ps', '-a', '--filter', 'name=holes-inline-sysfs', '-q'])).stdout.trim()).toBe('');
    expect((await cluster.as('admin', ['volume', 'ls', '-q'])).stdout).not.toContain('holes-sysfs-inline');
  });

  it('a tmpfs volume with tmpfs options and a quota-less plain volume are allowed', async () => {
    await ok('alice', ['volume', 'create', '-o', 'type=tmpfs', '-o', 'device=tmpfs', '-o', 'o=size=8m,mode=0700', 'holes-tmpfs']);
    const seen = await run('alice', ['-v', 'holes-tmpfs:/t'], 'grep " /t " /proc/mounts');
    expect(seen.stdout).toContain('tmpfs');
    await ok('alice', ['volume', 'create', 'holes-plain']);
  });
});

describe('hole 6: host paths a tenant can write', () => {
  it('a writable bind under a read-only entry is refused; :ro is allowed and cannot write', async () => {
    const writable = await cluster.as('alice', ['create', '--pull', 'never', '-v', `${READ_ONLY}:/d`, IMAGE]);
    expect(writable.code).not.toBe(0);
    expect(writable.stderr).toContain(
      forbids(`HostConfig.Binds[0]: ${READ_ONLY} is under ${READ_ONLY}, which is allowed read-only (add :ro)`),
    );
    const mount = await cluster.as('alice', ['create', '--pull', 'never', '--mount', `type=bind,src=${READ_ONLY},dst=/d`, IMAGE]);
    expect(mount.stderr).toContain(forbids('HostConfig.Mounts[0].ReadOnly'));
    const seen = await run('alice', ['-v', `${READ_ONLY}:/d:ro`], 'cat /d/motd; touch /d/planted 2>&1 || echo refused');
    expect(seen.stdout).toContain('read me');
    expect(seen.stdout).toContain('refused');
  });

  it('a symbolic link planted in a writable entry leads nowhere: binds below the entry are refused, though an admin would reach the host', async () => {
    // the tenant may write the writable entry, and plants a link to the host's root there
    const planted = await run('alice', ['-v', `${WRITABLE}:/w`], 'ln -s / /w/root && echo planted');
    expect(planted.stdout).toContain('planted');
    const through = await cluster.as('alice', ['create', '--pull', 'never', '-v', `${WRITABLE}/root/etc:/host:ro`, IMAGE]);
    expect(through.code).not.toBe(0);
    expect(through.stderr).toContain(forbids(`HostConfig.Binds[0]: ${WRITABLE}/root/etc is below the writable ${WRITABLE}`));
    const dotdot = await cluster.as('alice', ['create', '--pull', 'never', '-v', `${WRITABLE}/root/../x:/x:ro`, IMAGE]);
    expect(dotdot.stderr).toContain(forbids(`HostConfig.Binds[0]: ${WRITABLE}/root/../x has a .. segment`));
    // what the refusal prevents: the engine follows the link to the host's /etc
    const admin = await run('admin', ['-v', `${WRITABLE}/root/etc:/host:ro`], 'test -f /host/hostname && echo host-etc');
    expect(admin.stdout).toContain('host-etc');
  });
});

describe('hole 7: security profiles', () => {
  it('--security-opt seccomp=<a profile allowing everything> is refused; an admin runs with it', async () => {
    const file = join(dir, 'allow-all.json');
    writeFileSync(file, ALLOW_ALL);
    const result = await cluster.as('alice', ['create', '--pull', 'never', '--security-opt', `seccomp=${file}`, IMAGE]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(forbids('HostConfig.SecurityOpt[0]: an inline profile (sha256:'));
    expect(result.stderr).toContain('the operator did not list (allowedSeccompProfiles)');
    const admin = await run('admin', ['--security-opt', `seccomp=${file}`], 'grep Seccomp: /proc/self/status');
    expect(admin.stdout).toMatch(/Seccomp:\s+2/);
  });

  it('a profile the operator listed is allowed, as is the default', async () => {
    const file = join(dir, 'listed-copy.json');
    writeFileSync(file, LISTED_PROFILE);
    const listed = await run('alice', ['--security-opt', `seccomp=${file}`], 'grep Seccomp: /proc/self/status');
    expect(listed.stderr).toBe('');
    expect(listed.stdout).toMatch(/Seccomp:\s+2/);
    const unconfined = await cluster.as('alice', ['create', '--pull', 'never', '--security-opt', 'seccomp=unconfined', IMAGE]);
    expect(unconfined.stderr).toContain(forbids('HostConfig.SecurityOpt[0]: seccomp=unconfined'));
  });
});

describe('hole 8: cgroup placement', () => {
  it("--cgroup-parent into another container's cgroup is refused; one under an allowed prefix is not", async () => {
    const id = await ok('admin', ['run', '-d', '--pull', 'never', '--name', 'holes-victim', IMAGE, 'sleep', '600']);
    const into = await cluster.as('alice', ['create', '--pull', 'never', '--cgroup-parent', `/docker/${id}`, IMAGE]);
    expect(into.code).not.toBe(0);
    expect(into.stderr).toContain(forbids(`HostConfig.CgroupParent: /docker/${id} is outside /tenants`));
    // a container placed under the allowed parent is no better a home
    const nested = await cluster.as('alice', ['create', '--pull', 'never', '--cgroup-parent', `/tenants/${id}`, IMAGE]);
    expect(nested.stderr).toContain(forbids(`HostConfig.CgroupParent: /tenants/${id} names a container's own cgroup`));
    const escape = await cluster.as('alice', ['create', '--pull', 'never', '--cgroup-parent', '/tenants/../docker', IMAGE]);
    expect(escape.stderr).toContain(forbids('HostConfig.CgroupParent: /tenants/../docker has a .. segment'));
    const allowed = await cluster.as('alice', [
      'create',
      '--pull',
      'never',
      '--name',
      'holes-tenant-cgroup',
      '--cgroup-parent',
      '/tenants/a',
      IMAGE,
      'true',
    ]);
    expect(allowed.stderr).toBe('');
    expect(await ok('alice', ['inspect', '-f', '{{.HostConfig.CgroupParent}}', 'holes-tenant-cgroup'])).toBe('/tenants/a');
  });
});

itJudgedEveryEngineRequest('access-admission-holes', () => cluster);
