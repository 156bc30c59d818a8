import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startManager, type InfoAnswer, type Manager } from '../harness/manager.js';
import { docker, type CliResult } from './api-support.js';
import { accessConfig, httpsCall, startAccessCluster, type AccessCluster, type Person, certArgs as certFlags } from './access-support.js';
import { itJudgedEveryEngineRequest } from './access-invariant.js';

/*
 * The role matrix of issue #33 with the real docker CLI: every command family, for each kind of
 * caller (alice and amy: edit on team a; vera: view on everything; otto: operate on everything;
 * mallory: no binding; an admin), allowed or refused as plugins/authz-rules/src/roles.ts says, a
 * refusal's words checked. Then what a caller sees of the whole cluster (events, info, df, network
 * and volume lists), swarm's own routes and the web view, and bearer tokens on a listener without
 * client certificates.
 *
 * Engines 214-215; managers on 27410 (--tlsverify, certificates) and 27411 (--tls, tokens).
 */

const PORT = 27410;
const TOKEN_PORT = 27411;

let cluster: AccessCluster;
let tokenManager: Manager;
const tokenDirs: string[] = [];

/** The tokens file (kube-apiserver's `--token-auth-file` format: token,user,uid,"group1,group2"). */
const TOKENS = {
  alice: 'tok-alice-7f3a9c',
  bob: 'tok-bob-1d2e4b',
  admin: 'tok-admin-5c6d7e',
  vera: 'tok-vera-8a9b0c',
};
const TOKEN_FILE = [
  `${TOKENS.alice},alice,1001,"team-a"`,
  `${TOKENS.bob},bob,1002,"team-b"`,
  `${TOKENS.admin},root-admin,1,admins`,
  `${TOKENS.vera},vera,1004,"auditors"`,
  '',
].join('\n');

type Role = 'alice' | 'amy' | 'viewer' | 'operator' | 'outsider' | 'admin';
const ROLES: readonly Role[] = ['alice', 'amy', 'viewer', 'operator', 'outsider', 'admin'];

/** What each person's refusals start with: `user alice (groups team-a) may not`. */
const WHO: Readonly<Record<Role, string>> = {
  alice: 'user alice (groups team-a)',
  amy: 'user amy (groups team-a)',
  viewer: 'user vera (groups auditors)',
  operator: 'user otto (groups team-a-ops)',
  outsider: 'user mallory (groups nobody)',
  admin: 'user root-admin (groups admins)',
};

/** What each role may do, as src/roles.ts ranks them; `reach` says whether a scope-all binding is needed. */
type Need = 'view' | 'operate' | 'edit' | 'view-all' | 'edit-all' | 'admin';
const RANK: Readonly<Record<string, number>> = { view: 0, operate: 1, edit: 2, admin: 3 };
const HAS: Readonly<Record<Role, { rank: number; all: boolean } | undefined>> = {
  alice: { rank: 2, all: false },
  amy: { rank: 2, all: false },
  viewer: { rank: 0, all: true },
  operator: { rank: 1, all: true },
  outsider: undefined,
  admin: { rank: 3, all: true },
};

function allowed(role: Role, need: Need): boolean {
  const has = HAS[role];
  if (!has) return false;
  const [base, reach] = need.split('-') as [string, string | undefined];
  return has.rank >= RANK[base]! && (reach !== 'all' || has.all);
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The refusal the docker CLI prints: `Error response from daemon: user vera (groups auditors) may not container.logs ...`. */
function refusal(role: Role, actions: readonly string[]): RegExp {
  // Someone without a binding is refused at the CLI's first request, whatever it is.
  const action = role === 'outsider' ? '[a-z.]+' : `(?:${actions.map(escape).join('|')})`;
  return new RegExp(`Error response from daemon: ${escape(WHO[role])} may not ${action}\\b`);
}

function certArgs(person: Person): string[] {
  return certFlags(cluster.dir, person);
}

/** The docker CLI as a person, killed after `timeoutMs` (for commands that follow a stream: attach). */
function dockerFor(person: Person, args: string[], timeoutMs: number): Promise<CliResult & { timedOut: boolean }> {
  const env: Record<string, string | undefined> = { ...process.env };
  delete env.DOCKER_API_VERSION;
  return new Promise((resolve) => {
    const child = spawn('docker', ['-H', cluster.manager.host, ...certArgs(person), ...args], { env });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? 1, stdout, stderr, timedOut });
    });
    child.stdin.end();
  });
}

async function ok(person: Person, args: string[]): Promise<string> {
  const result = await cluster.as(person, args);
  if (result.code !== 0) throw new Error(`docker ${args.join(' ')} as ${person} failed (${result.code}): ${result.stderr}`);
  return result.stdout.trim();
}

/** Runs `tasks` at most `width` at a time. */
async function inBatches<T>(tasks: ReadonlyArray<() => Promise<T>>, width: number): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < tasks.length) {
        const index = next++;
        results[index] = await tasks[index]!();
      }
    }),
  );
  return results;
}

// Restricted (team b) needs all of these on every container bob creates.
const BOB_RUN = ['--user', '1000', '--security-opt', 'no-new-privileges', '-m', '64m', '--cpus', '0.5'];
const SLEEP = ['busybox:local', 'sleep', '600'];

/** Containers made for one matrix cell (a destructive command needs its own target per role that may do it). */
function cellName(family: string, role: Role): string {
  return `roles-${family}-${role}`;
}

interface Family {
  readonly name: string;
  readonly need: Need;
  /** The actions a refusal may name (the CLI may be refused at an earlier request than the family's own). */
  readonly actions: readonly string[];
  /** Each role that may do it gets its own container, made by alice: `created` or `running`. */
  readonly perRole?: 'created' | 'running' | 'network';
  readonly args: (role: Role, target: string) => string[];
  /** For commands that follow a stream: killed after this many ms (having followed it is success). */
  readonly followMs?: number;
  /** What the CLI prints for a refusal when it does not print the daemon's message. */
  readonly cliRefusal?: RegExp;
  /** The CLI exits 0 after printing the refusal (`docker info --format`). */
  readonly exitsZero?: boolean;
  /** More checks of an allowed answer. */
  readonly check?: (result: CliResult, role: Role) => void;
}

const SHARED = 'roles-a'; // alice's running container
const EXITED = 'roles-exited'; // alice's container that has exited
const TICKER = 'roles-ticker'; // alice's container that prints every 200 ms
const NETWORK = 'roles-anet'; // alice's network
const VOLUME = 'roles-avol'; // alice's volume
const NETWORK_REFUSED = 'roles-anet-keep'; // alice's network that the refused roles try to remove
let localFile = '';
let volumeNode = '';
let exportDir = '';

const FAMILIES: readonly Family[] = [
  {
    name: 'ps',
    need: 'view',
    actions: ['container.list'],
    args: () => ['ps', '-a', '--format', '{{.Names}}'],
    check: (result, role) => {
      const names = result.stdout
        .trim()
        .split('\n')
        .map((name) => name.replace(/^node\d+\//, ''));
      expect(names).toContain(SHARED);
      // team a's editors see their team's containers alone; the others see bob's too
      if (role === 'alice' || role === 'amy') expect(names).not.toContain('roles-b');
      else expect(names).toContain('roles-b');
    },
  },
  { name: 'inspect', need: 'view', actions: ['container.inspect'], args: (_, t) => ['container', 'inspect', '-f', '{{.Name}}', t] },
  {
    name: 'logs',
    need: 'operate',
    actions: ['container.logs', 'container.inspect'],
    args: (_, t) => ['logs', t],
    check: (r) => expect(r.stdout).toContain('roles-a ready'),
  },
  {
    name: 'exec',
    need: 'operate',
    actions: ['container.exec', 'container.inspect'],
    args: (_, t) => ['exec', t, 'echo', 'exec-ok'],
    check: (r) => expect(r.stdout.trim()).toBe('exec-ok'),
  },
  {
    name: 'attach',
    need: 'operate',
    actions: ['container.attach', 'container.inspect'],
    followMs: 4000,
    // The CLI shows no body of a refused upgrade (`unable to upgrade to tcp, received 403`), as with dockerd's AuthZ plugins.
    cliRefusal: /unable to upgrade to tcp, received 403/,
    args: () => ['attach', '--no-stdin', '--sig-proxy=false', TICKER],
    check: (r) => expect(r.stdout).toContain('tick'),
  },
  {
    name: 'cp-from',
    need: 'operate',
    actions: ['container.archive'],
    args: (_, t) => ['cp', `${t}:/etc/hostname`, '-'],
    check: (r) => expect(r.stdout).toContain('hostname'),
  },
  {
    name: 'cp-into',
    need: 'edit',
    actions: ['container.archive.write', 'container.archive'],
    args: (role, t) => ['cp', localFile, `${t}:/copied-by-${role}`],
  },
  {
    name: 'stats',
    need: 'view',
    actions: ['container.stats', 'container.inspect'],
    args: (_, t) => ['stats', '--no-stream', '--format', '{{.Name}}', t],
  },
  { name: 'top', need: 'view', actions: ['container.top'], args: (_, t) => ['top', t], check: (r) => expect(r.stdout).toContain('sleep') },
  { name: 'diff', need: 'view', actions: ['container.changes'], args: (_, t) => ['diff', t] },
  { name: 'rm', need: 'edit', actions: ['container.remove'], perRole: 'created', args: (_, t) => ['rm', '-f', t] },
  { name: 'stop', need: 'operate', actions: ['container.stop'], perRole: 'running', args: (_, t) => ['stop', '-t', '0', t] },
  { name: 'kill', need: 'operate', actions: ['container.kill'], perRole: 'running', args: (_, t) => ['kill', t] },
  { name: 'restart', need: 'operate', actions: ['container.restart'], perRole: 'running', args: (_, t) => ['restart', '-t', '0', t] },
  { name: 'pause', need: 'operate', actions: ['container.pause'], perRole: 'running', args: (_, t) => ['pause', t] },
  { name: 'rename', need: 'edit', actions: ['container.rename'], perRole: 'created', args: (_, t) => ['rename', t, `${t}-renamed`] },
  { name: 'update', need: 'edit', actions: ['container.update'], args: (_, t) => ['update', '--cpu-shares', '512', t] },
  { name: 'commit', need: 'edit', actions: ['container.commit'], args: (role, t) => ['commit', t, `roles-commit-${role}:1`] },
  {
    name: 'export',
    need: 'operate',
    actions: ['container.export'],
    args: (role, t) => ['export', '-o', join(exportDir, `${role}.tar`), t],
  },
  {
    name: 'wait',
    need: 'view',
    actions: ['container.wait'],
    args: () => ['wait', EXITED],
    check: (r) => expect(r.stdout.trim()).toBe('0'),
  },
  {
    name: 'run',
    need: 'edit',
    actions: ['container.create'],
    args: (role) => ['run', '-d', '--pull', 'never', '--name', cellName('run', role), ...SLEEP],
  },
  {
    name: 'events',
    need: 'view',
    actions: ['system.events'],
    args: () => ['events', '--since', '1m', '--until', '0s', '--format', '{{.Action}}'],
  },
  { name: 'info', need: 'view', actions: ['system.info'], exitsZero: true, args: () => ['info', '--format', '{{.Containers}}'] },
  { name: 'system-df', need: 'view', actions: ['system.df'], args: () => ['system', 'df'] },
  { name: 'version', need: 'view', actions: ['system.version'], args: () => ['version', '--format', '{{.Server.Version}}'] },
  { name: 'images', need: 'view', actions: ['image.list'], args: () => ['images', '-q'] },
  { name: 'tag', need: 'edit', actions: ['image.tag'], args: (role) => ['tag', 'busybox:local', `roles-tag-${role}:1`] },
  {
    name: 'container-prune',
    need: 'edit-all',
    actions: ['container.prune'],
    args: () => ['container', 'prune', '-f', '--filter', 'label=nothing-has-this'],
  },
  { name: 'network-ls', need: 'view', actions: ['network.list'], args: () => ['network', 'ls', '--format', '{{.Name}}'] },
  { name: 'network-inspect', need: 'view', actions: ['network.inspect'], args: () => ['network', 'inspect', '-f', '{{.Name}}', NETWORK] },
  { name: 'network-create', need: 'edit', actions: ['network.create'], args: (role) => ['network', 'create', cellName('netcreate', role)] },
  {
    name: 'network-rm',
    need: 'edit',
    actions: ['network.remove', 'network.inspect'],
    perRole: 'network',
    args: (_, t) => ['network', 'rm', t],
  },
  {
    name: 'network-connect',
    need: 'edit',
    actions: ['network.connect'],
    perRole: 'created',
    args: (_, t) => ['network', 'connect', NETWORK, t],
  },
  { name: 'volume-ls', need: 'view', actions: ['volume.list'], args: () => ['volume', 'ls', '--format', '{{.Name}}'] },
  {
    name: 'volume-inspect',
    need: 'view',
    actions: ['volume.inspect'],
    args: () => ['volume', 'inspect', '-f', '{{.Name}}', `${volumeNode}/${VOLUME}`],
  },
  { name: 'volume-create', need: 'edit', actions: ['volume.create'], args: (role) => ['volume', 'create', cellName('volcreate', role)] },
];

/** Roles each cell's own container is made for. */
function cellTargets(): Array<{ family: Family; role: Role; name: string }> {
  return FAMILIES.flatMap((family) =>
    family.perRole
      ? ROLES.filter((role) => allowed(role, family.need)).map((role) => ({ family, role, name: cellName(family.name, role) }))
      : [],
  );
}

function tokenCall(method: string, path: string, token: string | undefined, body?: unknown): Promise<{ status: number; text: string }> {
  return httpsCall(cluster.dir, TOKEN_PORT, undefined, method, path, body, token ? { Authorization: `Bearer ${token}` } : {});
}

/** The docker CLI on the token listener: no client certificate, the token from `~/.docker/config.json`'s HttpHeaders. */
function dockerWithToken(token: string | undefined, args: string[]): Promise<CliResult> {
  const config = mkdtempSync(join(tmpdir(), 'swarm-roles-docker-config-'));
  tokenDirs.push(config);
  writeFileSync(join(config, 'config.json'), JSON.stringify(token ? { HttpHeaders: { Authorization: `Bearer ${token}` } } : {}));
  return docker(tokenManager.host, ['--tlsverify', '--tlscacert', join(cluster.dir, 'ca.pem'), ...args], {
    env: { DOCKER_CONFIG: config },
  });
}

beforeAll(async () => {
  cluster = await startAccessCluster({
    firstEngine: 214,
    engines: 2,
    port: PORT,
    args: ['--ui'],
    recordEngines: true,
    config: (dir) => {
      writeFileSync(join(dir, 'tokens.csv'), TOKEN_FILE, { mode: 0o600 });
      return accessConfig(join(dir, 'tokens.csv'));
    },
  });
  const dir = cluster.dir;
  localFile = join(dir, 'hostname-file');
  writeFileSync(localFile, 'copied\n');
  exportDir = mkdtempSync(join(tmpdir(), 'swarm-roles-export-'));
  // The same config (tls, then token-file) behind a listener that asks for no client certificate.
  const startTokens = startManager({
    discovery: cluster.discovery,
    port: TOKEN_PORT,
    expectNodes: 2,
    args: [
      '--config',
      join(dir, 'swarm.config.json'),
      // it stops before the engine invariant is checked: its streams' audit lines are written within the harness's 5 s
      '--shutdown-timeout',
      '2s',
      '--tls',
      '--tlscacert',
      join(dir, 'ca.pem'),
      '--tlscert',
      join(dir, 'server-cert.pem'),
      '--tlskey',
      join(dir, 'server-key.pem'),
    ],
    readInfo: async () => {
      try {
        const answer = await tokenCall('GET', '/info', TOKENS.admin);
        return answer.status === 200 ? (JSON.parse(answer.text) as InfoAnswer) : undefined;
      } catch {
        return undefined;
      }
    },
  });
  // network connect needs the container on the network's node
  await ok('alice', ['network', 'create', NETWORK]);
  const networkNode = (await ok('admin', ['network', 'ls', '--filter', `name=${NETWORK}`, '--format', '{{.Name}}'])).split('/')[0]!;
  const setup: Array<() => Promise<unknown>> = [
    () => ok('alice', ['run', '-d', '--name', SHARED, 'busybox:local', 'sh', '-c', 'echo roles-a ready; exec sleep 600']),
    () => ok('alice', ['run', '-d', '--name', EXITED, 'busybox:local', 'true']),
    () => ok('alice', ['run', '-d', '--name', TICKER, 'busybox:local', 'sh', '-c', 'while true; do echo tick; sleep 0.2; done']),
    () => ok('bob', ['run', '-d', '--name', 'roles-b', ...BOB_RUN, ...SLEEP]),
    () => ok('alice', ['network', 'create', NETWORK_REFUSED]),
    () => ok('bob', ['network', 'create', 'roles-bnet']),
    () => ok('alice', ['volume', 'create', VOLUME]),
    () => ok('bob', ['volume', 'create', 'roles-bvol']),
    ...cellTargets().map(({ family, name }) => () => {
      if (family.perRole === 'network') return ok('alice', ['network', 'create', name]);
      const where = family.name === 'network-connect' ? ['-e', `constraint:node==${networkNode}`] : [];
      return ok('alice', [
        family.perRole === 'running' ? 'run' : 'create',
        ...(family.perRole === 'running' ? ['-d'] : []),
        ...where,
        '--name',
        name,
        ...SLEEP,
      ]);
    }),
  ];
  await inBatches(setup, 4);
  tokenManager = await startTokens;
  await ok('alice', ['wait', EXITED]);
  volumeNode = (await ok('admin', ['volume', 'ls', '--filter', `name=${VOLUME}`, '--format', '{{.Name}}'])).split('\n')[0]!.split('/')[0]!;
}, 180_000);

afterAll(async () => {
  await tokenManager?.stop();
  await cluster?.stop();
  for (const dir of [...tokenDirs, exportDir]) if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the role matrix with the docker CLI (role × command family)', () => {
  it.each(FAMILIES.map((family) => [family.name, family] as const))('%s', async (_, family) => {
    // Refused roles first (on the shared target), so that an allowed destructive command never runs before them.
    const order = [...ROLES].sort((a, b) => Number(allowed(a, family.need)) - Number(allowed(b, family.need)));
    const refused = order.filter((role) => !allowed(role, family.need));
    const permitted = order.filter((role) => allowed(role, family.need));
    const run = (role: Role) => {
      const target =
        family.perRole && allowed(role, family.need)
          ? cellName(family.name, role)
          : family.perRole === 'network'
            ? NETWORK_REFUSED
            : SHARED;
      const args = family.args(role, target);
      return family.followMs ? dockerFor(role as Person, args, family.followMs) : cluster.as(role as Person, args);
    };
    const refusedResults = await Promise.all(refused.map(run));
    const permittedResults = await Promise.all(permitted.map(run));
    const problems: string[] = [];
    refused.forEach((role, i) => {
      const result = refusedResults[i]!;
      const output = result.stderr + result.stdout;
      const said = refusal(role, family.actions).test(output) || (family.cliRefusal?.test(output) ?? false);
      if ((result.code === 0 && !family.exitsZero) || !said) {
        problems.push(
          `${role} should be refused ${family.actions[0]}: exit ${result.code}, output ${JSON.stringify((result.stderr + result.stdout).trim().slice(0, 400))}`,
        );
      }
    });
    permitted.forEach((role, i) => {
      const result = permittedResults[i]! as CliResult & { timedOut?: boolean };
      const succeeded = family.followMs ? result.timedOut === true && result.stderr === '' : result.code === 0;
      if (!succeeded) {
        problems.push(
          `${role} should be allowed ${family.actions[0]}: exit ${result.code}, stderr ${JSON.stringify(result.stderr.trim())}`,
        );
        return;
      }
      try {
        family.check?.(result, role);
      } catch (error) {
        problems.push(`${role}: ${(error as Error).message}`);
      }
    });
    expect(problems).toEqual([]);
  });
});

describe('refusals the CLI does not print', () => {
  it('a refused attach says why in its 403 body (the CLI shows only "received 403")', async () => {
    const path = `/v1.41/containers/${TICKER}/attach?stream=0&logs=1&stdout=1`;
    const [viewer, operator] = await Promise.all([cluster.call('viewer', 'POST', path), cluster.call('operator', 'POST', path)]);
    expect(viewer.status).toBe(403);
    expect(JSON.parse(viewer.text).message).toBe(
      `user vera (groups auditors) may not container.attach container ${TICKER}: they have role view on everything (bindings[3]); bind role operate`,
    );
    expect(operator.status).toBe(200);
    expect(operator.text).toContain('tick');
  });
});

describe('what a scoped caller sees of the whole cluster', () => {
  it('docker events --since/--until: alice sees her containers’ events only, vera everyone’s, mallory none', async () => {
    const since = Math.floor(Date.now() / 1000) - 1;
    await Promise.all([ok('alice', ['restart', '-t', '0', SHARED]), ok('bob', ['restart', '-t', '0', 'roles-b'])]);
    await new Promise((resolve) => setTimeout(resolve, 1200));
    const until = Math.floor(Date.now() / 1000) + 1;
    const window = [
      'events',
      '--since',
      String(since),
      '--until',
      String(until),
      '--format',
      '{{.Type}} {{.Action}} {{.Actor.Attributes.name}} {{.Actor.Attributes.container}}',
    ];
    const [alice, bob, viewer, outsider, idsA, idsB] = await Promise.all([
      cluster.as('alice', window),
      cluster.as('bob', window),
      cluster.as('viewer', window),
      cluster.as('outsider', window),
      ok('admin', ['ps', '-aq', '--no-trunc', '--filter', 'label=com.docker.swarm.team=team-a']),
      ok('admin', ['ps', '-aq', '--no-trunc', '--filter', 'label=com.docker.swarm.team=team-b']),
    ]);
    expect(alice.stderr).toBe('');
    expect(alice.stdout).toMatch(/container restart roles-a/);
    expect(alice.stdout).not.toMatch(/roles-b/);
    for (const id of idsB.split('\n').filter(Boolean)) expect(alice.stdout).not.toContain(id);
    // alice's network events are those of her containers
    for (const line of alice.stdout
      .trim()
      .split('\n')
      .filter((l) => l.startsWith('network '))) {
      const [, , name, container] = line.split(' ');
      if (container !== '<no') expect(idsA.split('\n'), `${line}\n${alice.stdout}`).toContain(container);
      expect(name, line).not.toBe('roles-bnet');
    }
    expect(bob.stdout).toMatch(/container restart roles-b/);
    expect(bob.stdout).not.toMatch(/roles-a/);
    expect(viewer.stdout).toMatch(/container restart roles-a/);
    expect(viewer.stdout).toMatch(/container restart roles-b/);
    expect(outsider.code).not.toBe(0);
    expect(outsider.stderr).toMatch(refusal('outsider', ['system.events']));
  });

  it('docker info counts only what the caller sees (per node too)', async () => {
    const [alice, bob, admin, teamA, teamB, all] = await Promise.all([
      cluster.as('alice', ['info', '--format', '{{.Containers}} {{json .SystemStatus}}']),
      cluster.as('bob', ['info', '--format', '{{.Containers}} {{json .SystemStatus}}']),
      cluster.as('admin', ['info', '--format', '{{.Containers}} {{json .SystemStatus}}']),
      ok('admin', ['ps', '-aq', '--filter', 'label=com.docker.swarm.team=team-a']),
      ok('admin', ['ps', '-aq', '--filter', 'label=com.docker.swarm.team=team-b']),
      ok('admin', ['ps', '-aq']),
    ]);
    const count = (text: string) => text.split('\n').filter(Boolean).length;
    const perNode = (text: string) =>
      (JSON.parse(text.slice(text.indexOf(' ') + 1)) as Array<[string, string]>)
        .filter(([key]) => key === '  └ Containers')
        .reduce((sum, [, value]) => sum + Number(value.split(' ')[0]), 0);
    expect(Number(alice.stdout.split(' ')[0])).toBe(count(teamA));
    expect(perNode(alice.stdout)).toBe(count(teamA));
    expect(Number(bob.stdout.split(' ')[0])).toBe(count(teamB));
    expect(perNode(bob.stdout)).toBe(count(teamB));
    expect(Number(admin.stdout.split(' ')[0])).toBe(count(all));
  });

  it('system df lists only the caller’s containers and volumes', async () => {
    const [aliceDf, bIds, bVolumes] = await Promise.all([
      cluster.call('alice', 'GET', '/v1.41/system/df'),
      ok('admin', ['ps', '-aq', '--no-trunc', '--filter', 'label=com.docker.swarm.team=team-b']),
      ok('admin', ['volume', 'ls', '-q', '--filter', 'label=com.docker.swarm.team=team-b']),
    ]);
    expect(aliceDf.status).toBe(200);
    const df = JSON.parse(aliceDf.text) as {
      Containers: Array<{ Id: string; Labels?: Record<string, string> }>;
      Volumes: Array<{ Name: string; Labels?: Record<string, string> }>;
    };
    expect(df.Containers.length).toBeGreaterThan(0);
    for (const container of df.Containers) expect(container.Labels?.['com.docker.swarm.team']).toBe('team-a');
    for (const id of bIds.split('\n').filter(Boolean)) expect(aliceDf.text).not.toContain(id);
    expect(df.Volumes.map((volume) => volume.Name)).toContain(VOLUME);
    for (const name of bVolumes.split('\n').filter(Boolean))
      expect(df.Volumes.map((volume) => volume.Name)).not.toContain(name.replace(/^node\d+\//, ''));
    const cli = await cluster.as('alice', ['system', 'df', '-v']);
    expect(cli.stdout).toContain(SHARED);
    expect(cli.stdout).not.toContain('roles-b');
    expect(cli.stdout).not.toContain('roles-bvol');
  });

  it('network ls and volume ls: the caller’s own and the predefined networks', async () => {
    const [aliceNets, bobNets, viewerNets, aliceVols, bobVols, viewerVols] = await Promise.all([
      ok('alice', ['network', 'ls', '--format', '{{.Name}}']),
      ok('bob', ['network', 'ls', '--format', '{{.Name}}']),
      ok('viewer', ['network', 'ls', '--format', '{{.Name}}']),
      ok('alice', ['volume', 'ls', '--format', '{{.Name}}']),
      ok('bob', ['volume', 'ls', '--format', '{{.Name}}']),
      ok('viewer', ['volume', 'ls', '--format', '{{.Name}}']),
    ]);
    const bare = (text: string) => new Set(text.split('\n').map((name) => name.replace(/^node\d+\//, '')));
    expect([...bare(aliceNets)]).toEqual(expect.arrayContaining([NETWORK, 'bridge', 'host', 'none']));
    expect([...bare(aliceNets)]).not.toContain('roles-bnet');
    expect([...bare(bobNets)]).toEqual(expect.arrayContaining(['roles-bnet', 'bridge', 'host', 'none']));
    expect([...bare(bobNets)]).not.toContain(NETWORK);
    expect([...bare(viewerNets)]).toEqual(expect.arrayContaining([NETWORK, 'roles-bnet']));
    expect([...bare(aliceVols)]).toContain(VOLUME);
    expect([...bare(aliceVols)]).not.toContain('roles-bvol');
    expect([...bare(bobVols)]).toContain('roles-bvol');
    expect([...bare(bobVols)]).not.toContain(VOLUME);
    expect([...bare(viewerVols)]).toEqual(expect.arrayContaining([VOLUME, 'roles-bvol']));
  });
});

describe('everyday docker CLI workflows of a team member', () => {
  it('docker inspect of a name nobody has is "No such object", not a refusal', async () => {
    const result = await cluster.as('alice', ['inspect', 'roles-nobody-has-this']);
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe('Error: No such object: roles-nobody-has-this');
  });

  it('a named volume that docker run creates is the caller’s: listed, mounted again, removed', async () => {
    const first = await cluster.as('alice', [
      'run',
      '-d',
      '--pull',
      'never',
      '--name',
      'roles-autovol-1',
      '-v',
      'roles-autovol:/x',
      ...SLEEP,
    ]);
    expect(first.stderr).toBe('');
    // a second container of hers on the same node mounts the same volume (what `-v name:/x` is for)
    const second = await cluster.as('alice', [
      'run',
      '-d',
      '--pull',
      'never',
      '--name',
      'roles-autovol-2',
      '-e',
      'affinity:container==roles-autovol-1',
      '-v',
      'roles-autovol:/x',
      ...SLEEP,
    ]);
    const listed = await ok('alice', ['volume', 'ls', '-q', '--filter', 'name=roles-autovol']);
    await ok('alice', ['rm', '-f', 'roles-autovol-1', ...(second.code === 0 ? ['roles-autovol-2'] : [])]);
    const removed = await cluster.as('alice', ['volume', 'rm', 'roles-autovol']);
    expect(second.stderr).toBe('');
    expect(listed).toMatch(/roles-autovol/);
    expect(removed.stderr).toBe('');
  });
});

describe("swarm's routes and the web view", () => {
  const explainBody = { Image: 'busybox:local', Cmd: ['true'] };

  it('/_swarm/metrics needs a binding with scope all (view on everything at least)', async () => {
    const answers = await Promise.all(ROLES.map((role) => cluster.call(role as Person, 'GET', '/_swarm/metrics')));
    ROLES.forEach((role, i) => {
      const answer = answers[i]!;
      if (allowed(role, 'view-all')) {
        expect(answer.status, role).toBe(200);
        expect(answer.text, role).toMatch(/swarm_node_healthy/);
      } else {
        expect(answer.status, role).toBe(403);
        expect(JSON.parse(answer.text).message, role).toMatch(new RegExp(`^${escape(WHO[role])} may not swarm.metrics`));
      }
    });
    expect(JSON.parse(answers[0]!.text).message).toMatch(
      /swarm.metrics reaches the objects of every owner, so it needs role view with scope all/,
    );
  });

  it('/_swarm/v1/explain is a view', async () => {
    const answers = await Promise.all(ROLES.map((role) => cluster.call(role as Person, 'POST', '/_swarm/v1/explain', explainBody)));
    ROLES.forEach((role, i) => {
      const answer = answers[i]!;
      if (allowed(role, 'view')) {
        expect(answer.status, `${role}: ${answer.text}`).toBe(200);
        // explain is a dry run of a create: who may not create is told so, as their docker run would be
        if (allowed(role, 'edit')) expect(JSON.parse(answer.text).nodes).toHaveLength(2);
        else
          expect(JSON.parse(answer.text)).toMatchObject({
            nodes: [],
            refused: { stage: 'authorization', status: 403 },
            error: expect.stringMatching(new RegExp(`^${escape(WHO[role])} may not container.create`)),
          });
      } else {
        expect(answer.status, role).toBe(403);
        expect(JSON.parse(answer.text).message).toMatch(new RegExp(`^${escape(WHO[role])} may not swarm.explain`));
      }
    });
  });

  it('the web view: the page, its status and its explain (a read through the view) are views', async () => {
    const pages = await Promise.all(ROLES.map((role) => cluster.call(role as Person, 'GET', '/swarm/ui/')));
    const statuses = await Promise.all(ROLES.map((role) => cluster.call(role as Person, 'GET', '/swarm/ui/api/status')));
    const explains = await Promise.all(
      ROLES.map((role) => cluster.call(role as Person, 'POST', '/swarm/ui/api/explain', { args: ['busybox:local', 'true'] })),
    );
    ROLES.forEach((role, i) => {
      if (allowed(role, 'view')) {
        expect(pages[i]!.status, role).toBe(200);
        expect(pages[i]!.text, role).toMatch(/<html/i);
        expect(statuses[i]!.status, role).toBe(200);
      } else {
        expect(pages[i]!.status, role).toBe(403);
        expect(JSON.parse(pages[i]!.text).message).toMatch(new RegExp(`^${escape(WHO[role])} may not swarm.web`));
      }
      if (allowed(role, 'view')) {
        expect(explains[i]!.status, `${role}: ${explains[i]!.text}`).toBe(200);
      } else {
        expect(explains[i]!.status, role).toBe(403);
        expect(JSON.parse(explains[i]!.text).message).toMatch(new RegExp(`^${escape(WHO[role])} may not swarm.web.action`));
      }
    });
    // the status's container count is the caller's
    const count = (answer: { text: string }) => JSON.stringify(JSON.parse(answer.text));
    expect(count(statuses[0]!)).not.toBe(count(statuses[ROLES.indexOf('admin')]!));
  });
});

describe('bearer tokens on a listener without client certificates', () => {
  it('the docker CLI sends the token from config.json HttpHeaders: alice by token is alice', async () => {
    // the token listener is a second manager: it learns of the previous test's removals from the
    // engines' events, a moment after the first one, so the two lists are compared once they settle
    const sorted = (text: string) => text.trim().split('\n').sort();
    let byToken: CliResult | undefined;
    let byCert = '';
    for (let attempt = 1; attempt <= 20; attempt++) {
      [byToken, byCert] = await Promise.all([
        dockerWithToken(TOKENS.alice, ['ps', '-a', '--format', '{{.Names}}']),
        ok('alice', ['ps', '-a', '--format', '{{.Names}}']),
      ]);
      if (byToken.code !== 0 || JSON.stringify(sorted(byToken.stdout)) === JSON.stringify(sorted(byCert))) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(byToken!.stderr).toBe('');
    expect(byToken!.code).toBe(0);
    expect(sorted(byToken!.stdout)).toEqual(sorted(byCert));
    expect(byToken!.stdout).not.toContain('roles-b');
  });

  it('a container created with a token is labelled with its owner and team', async () => {
    const run = await dockerWithToken(TOKENS.alice, ['run', '-d', '--pull', 'never', '--name', 'roles-token-run', ...SLEEP]);
    expect(run.stderr).toBe('');
    const labels = await ok('admin', [
      'container',
      'inspect',
      '-f',
      '{{index .Config.Labels "com.docker.swarm.owner"}} {{index .Config.Labels "com.docker.swarm.team"}}',
      'roles-token-run',
    ]);
    expect(labels).toBe('alice team-a');
    // bob's token does not see it, as bob's certificate does not
    const [bob, nobody] = await Promise.all([
      dockerWithToken(TOKENS.bob, ['container', 'inspect', 'roles-token-run']),
      dockerWithToken(TOKENS.bob, ['container', 'inspect', 'roles-token-nobody']),
    ]);
    expect(bob.code).toBe(1);
    expect(bob.stderr.replace('roles-token-run', 'X')).toBe(nobody.stderr.replace('roles-token-nobody', 'X'));
    expect(bob.stderr).toMatch(/No such container: roles-token-run/);
  });

  it('roles hold for token callers: vera may view, not remove; the admin token reads metrics', async () => {
    const [viewPs, viewRm, metrics, aliceMetrics] = await Promise.all([
      dockerWithToken(TOKENS.vera, ['ps', '-a', '--format', '{{.Names}}']),
      dockerWithToken(TOKENS.vera, ['rm', '-f', SHARED]),
      tokenCall('GET', '/_swarm/metrics', TOKENS.admin),
      tokenCall('GET', '/_swarm/metrics', TOKENS.alice),
    ]);
    expect(viewPs.stdout).toContain('roles-b');
    expect(viewRm.code).toBe(1);
    expect(viewRm.stderr).toMatch(
      /Error response from daemon: user vera \(groups auditors\) may not container.remove container roles-a: they have role view on everything/,
    );
    expect(metrics.status).toBe(200);
    expect(aliceMetrics.status).toBe(403);
  });

  it('an unknown token is 401 "authentication failed: invalid bearer token", to the CLI too', async () => {
    const [raw, cli, ping] = await Promise.all([
      tokenCall('GET', '/v1.41/containers/json', 'tok-nobody-has-this'),
      dockerWithToken('tok-nobody-has-this', ['ps']),
      tokenCall('GET', '/_ping', 'tok-nobody-has-this'),
    ]);
    expect(raw.status).toBe(401);
    expect(JSON.parse(raw.text).message).toBe('authentication failed: invalid bearer token');
    expect(raw.text).not.toContain('tok-nobody-has-this');
    expect(cli.code).toBe(1);
    expect(cli.stderr).toMatch(/authentication failed: invalid bearer token/);
    expect(cli.stderr).not.toContain('tok-nobody-has-this');
    // the credential is wrong whatever the route: even a ping is refused
    expect(ping.status).toBe(401);
  });

  it('no token is system:anonymous, refused by the rules with a reason naming it (ping is open)', async () => {
    const [ping, raw, cli] = await Promise.all([
      tokenCall('GET', '/_ping', undefined),
      tokenCall('GET', '/v1.41/containers/json', undefined),
      dockerWithToken(undefined, ['ps']),
    ]);
    expect(ping.status).toBe(200);
    expect(raw.status).toBe(403);
    expect(JSON.parse(raw.text).message).toMatch(/^user system:anonymous \(groups system:unauthenticated\) may not container.list/);
    expect(cli.code).toBe(1);
    expect(cli.stderr).toMatch(
      /Error response from daemon: user system:anonymous \(groups system:unauthenticated\) may not container.list/,
    );
  });

  it('a client certificate and a token: the certificate (first authenticator) names the caller', async () => {
    const answer = await cluster.call('alice', 'GET', '/v1.41/containers/roles-b/json', undefined, {
      Authorization: `Bearer ${TOKENS.admin}`,
    });
    expect(answer.status).toBe(404);
    expect(JSON.parse(answer.text).message).toBe('No such container: roles-b');
  });
});

itJudgedEveryEngineRequest(
  'access-roles',
  () => cluster,
  async () => tokenManager?.stop(),
);
