import { readFileSync } from 'node:fs';
import type { AccessCluster, Person } from '../access-support.js';
import { SAFE_SYSCTLS as BASELINE_SYSCTLS } from '../pod-security-support.js';

/**
 * The objects of the generated run: bob's (team b, the targets) and alice's own (team a, the
 * attacker's footholds), as the admin sees them; what of bob's must never reach alice; bob's
 * objects' state for the before/after comparison; and what alice made, judged for host escalation
 * and then removed so that every attempt starts from the same cluster.
 */

export const BOB_OBJECTS = ['db', 'stopped', 'compose', 'exec', 'net', 'vol', 'img'] as const;
export type BobObject = (typeof BOB_OBJECTS)[number];
export const ALICE_OBJECTS = ['app', 'paused', 'pexec', 'net', 'vol'] as const;
export type AliceObject = (typeof ALICE_OBJECTS)[number];
export const SPELLINGS = ['name', 'id', 'p12', 'short', 'node'] as const;
export type Spelling = (typeof SPELLINGS)[number];

/** The host path the access config allows binds of. */
export const ALLOWED_HOST_PATH = '/tmp/swarm-access-data';
const BOB_RUN = ['--user', '1000', '--security-opt', 'no-new-privileges', '-m', '64m', '--cpus', '0.5'];

interface Known {
  /** Name as typed (`bob-db`, `bob-img:1`); an exec's is its ID. */
  readonly name: string;
  /** Full ID (an image's without `sha256:`). */
  readonly id: string;
  readonly node: string;
}

export interface World {
  readonly bob: Readonly<Record<BobObject, Known>>;
  readonly alice: Record<AliceObject, Known>;
  /** The value of bob-db's secret environment variable. */
  readonly secret: string;
  /** What must not appear in an answer to alice, with what it is. */
  readonly identifiers: ReadonlyArray<readonly [string, string]>;
  /** The shortest prefix of each of bob's IDs no other object's ID starts with. */
  readonly short: Readonly<Record<BobObject, string>>;
  /** Made-up IDs (64 hex) nobody's object starts with, one per object of bob's. */
  readonly nobodyIds: Readonly<Record<BobObject, string>>;
  readonly nodes: readonly string[];
  /** The host's interface of its default route (a macvlan or ipvlan parent). */
  readonly hostInterface: string;
  /** The engines' own cgroup namespace mode for a container that asks for none (`host` on cgroup v1). */
  readonly cgroupnsDefault: string;
  /** Unix time when setup began (events of bob's lie after it). */
  readonly since: number;
}

type Call = AccessCluster['call'];

export async function jsonOf<T>(call: Call, person: Person, method: string, path: string, body?: unknown): Promise<T> {
  const answer = await call(person, method, path, body);
  if (answer.status >= 300) throw new Error(`${person}: ${method} ${path} answered ${answer.status}: ${answer.text.slice(0, 300)}`);
  return (answer.text ? JSON.parse(answer.text) : undefined) as T;
}

function randomHex(length: number, avoid: readonly string[]): string {
  for (;;) {
    let text = '';
    while (text.length < length) text += Math.floor(Math.random() * 16).toString(16);
    if (!avoid.some((id) => id.startsWith(text.slice(0, 2)))) return text;
  }
}

async function cli(cluster: AccessCluster, person: Person, args: string[]): Promise<string> {
  const result = await cluster.as(person, args);
  if (result.code !== 0) throw new Error(`docker ${args.join(' ')} as ${person} failed (${result.code}): ${result.stderr}`);
  return result.stdout.trim();
}

async function nodeOf(cluster: AccessCluster, name: string): Promise<string> {
  return (await cli(cluster, 'admin', ['ps', '-a', '--filter', `name=^/?[^/]*/?${name}$`, '--format', '{{.Names}}'])).split('/')[0]!;
}

/** Every container, network, volume and image ID in the cluster now, as the admin sees them. */
async function allIds(call: Call): Promise<string[]> {
  const [containers, networks, images] = await Promise.all([
    jsonOf<Array<{ Id: string }>>(call, 'admin', 'GET', '/v1.41/containers/json?all=1'),
    jsonOf<Array<{ Id: string }>>(call, 'admin', 'GET', '/v1.41/networks'),
    jsonOf<Array<{ Id: string }>>(call, 'admin', 'GET', '/v1.41/images/json?all=1'),
  ]);
  return [...containers, ...networks, ...images].map((row) => row.Id.replace(/^sha256:/, ''));
}

export async function makeWorld(cluster: AccessCluster): Promise<World> {
  const call = cluster.call;
  const since = Math.floor(Date.now() / 1000) - 1;
  const secret = `s3cret-${randomHex(16, [])}`;
  await cli(cluster, 'bob', ['network', 'create', 'bob-net']);
  const [dbId = '', stoppedId = '', composeId = ''] = await Promise.all([
    cli(cluster, 'bob', [
      'run',
      '-d',
      '--name',
      'bob-db',
      '--network',
      'bob-net',
      '-e',
      `BOB_SECRET=${secret}`,
      '--label',
      'app=bob-db',
      ...BOB_RUN,
      'busybox:local',
      'sh',
      '-c',
      'echo ready $BOB_SECRET; exec sleep 3600',
    ]),
    cli(cluster, 'bob', ['run', '-d', '--name', 'bob-stopped', ...BOB_RUN, 'busybox:local', 'true']),
    cli(cluster, 'bob', [
      'run',
      '-d',
      '--name',
      'bobproj-db-1',
      '--label',
      'com.docker.compose.project=bobproj',
      '--label',
      'com.docker.compose.service=db',
      '--label',
      'com.docker.compose.container-number=1',
      '--label',
      'com.docker.compose.oneoff=False',
      ...BOB_RUN,
      'busybox:local',
      'sleep',
      '3600',
    ]),
    cli(cluster, 'bob', ['volume', 'create', 'bob-vol']),
    cli(cluster, 'alice', ['network', 'create', 'alice-net']),
    cli(cluster, 'alice', ['volume', 'create', 'alice-vol']),
  ]);
  const dbNode = await nodeOf(cluster, 'bob-db');
  // the volume holds a secret file: nobody but bob may read it
  const writer = await cli(cluster, 'admin', [
    'run',
    '-d',
    '-e',
    `constraint:node==${dbNode}`,
    '-v',
    'bob-vol:/d',
    'busybox:local',
    'sh',
    '-c',
    `echo ${secret} > /d/s`,
  ]);
  await cli(cluster, 'admin', ['wait', writer]);
  await cli(cluster, 'admin', ['rm', '-f', writer]);
  const exec = await jsonOf<{ Id: string }>(call, 'bob', 'POST', '/v1.41/containers/bob-db/exec', {
    Cmd: ['sh', '-c', 'echo ran > /tmp/exec-ran'],
  });
  const imageId = (await cli(cluster, 'bob', ['commit', 'bob-db', 'bob-img:1'])).replace(/^sha256:/, '');
  const [appId = '', pausedId = ''] = await Promise.all([
    cli(cluster, 'alice', ['run', '-d', '--name', 'alice-app', 'busybox:local', 'sleep', '3600']),
    cli(cluster, 'alice', ['run', '-d', '--name', 'alice-paused', 'busybox:local', 'sleep', '3600']),
  ]);
  // An exec of alice's own in a container she then pauses: the engine refuses to start it (409)
  // without switching protocols, so a start sent with `Upgrade` is the smuggling route. (A stopped
  // container's execs are gone: dockerd answers 404 and closes.)
  const pexec = await jsonOf<{ Id: string }>(call, 'alice', 'POST', '/v1.41/containers/alice-paused/exec', { Cmd: ['true'] });
  await cli(cluster, 'alice', ['pause', 'alice-paused']);
  const network = await jsonOf<{ Id: string }>(call, 'admin', 'GET', '/v1.41/networks/bob-net');
  const aliceNet = await jsonOf<{ Id: string }>(call, 'admin', 'GET', '/v1.41/networks/alice-net');
  const [stoppedNode = '', composeNode = '', appNode = '', pausedNode = ''] = await Promise.all(
    ['bob-stopped', 'bobproj-db-1', 'alice-app', 'alice-paused'].map((name) => nodeOf(cluster, name)),
  );
  const info = await jsonOf<{ SystemStatus?: string[][] }>(call, 'admin', 'GET', '/v1.41/info');
  const nodes = (info.SystemStatus ?? [])
    .filter((row) => /^ ?\S+$/.test(row[0] ?? '') && /:\d+$/.test(row[1] ?? ''))
    .map((row) => row[0]!.trim());
  const bob: Record<BobObject, Known> = {
    db: { name: 'bob-db', id: dbId, node: dbNode },
    stopped: { name: 'bob-stopped', id: stoppedId, node: stoppedNode },
    compose: { name: 'bobproj-db-1', id: composeId, node: composeNode },
    exec: { name: exec.Id, id: exec.Id, node: dbNode },
    net: { name: 'bob-net', id: network.Id, node: dbNode },
    vol: { name: 'bob-vol', id: 'bob-vol', node: dbNode },
    img: { name: 'bob-img:1', id: imageId, node: dbNode },
  };
  const alice: Record<AliceObject, Known> = {
    app: { name: 'alice-app', id: appId, node: appNode },
    paused: { name: 'alice-paused', id: pausedId, node: pausedNode },
    pexec: { name: pexec.Id, id: pexec.Id, node: pausedNode },
    net: { name: 'alice-net', id: aliceNet.Id, node: appNode },
    vol: { name: 'alice-vol', id: 'alice-vol', node: appNode },
  };
  const ids = [...(await allIds(call)), exec.Id, pexec.Id];
  const short = {} as Record<BobObject, string>;
  const nobodyIds = {} as Record<BobObject, string>;
  for (const object of BOB_OBJECTS) {
    const id = bob[object].id;
    let length = 2;
    while (ids.some((other) => other !== id && other.startsWith(id.slice(0, length)))) length++;
    short[object] = object === 'vol' ? 'bob-vol' : id.slice(0, length);
    nobodyIds[object] = randomHex(64, ids);
  }
  const identifiers: Array<readonly [string, string]> = [['secret', secret]];
  for (const object of BOB_OBJECTS) {
    const { id, name } = bob[object];
    if (object !== 'vol') identifiers.push([`${object} ID`, id], [`${object} ID prefix`, id.slice(0, 12)]);
    if (object !== 'exec') identifiers.push([`${object} name`, name]);
  }
  identifiers.push(['img name', 'bob-img'], ['compose project', 'bobproj']);
  const plain = await jsonOf<{ HostConfig: { CgroupnsMode?: string } }>(call, 'admin', 'GET', `/v1.41/containers/${appId}/json`);
  const cgroupnsDefault = plain.HostConfig.CgroupnsMode ?? '';
  // /proc/net/route: interface, destination (00000000 for the default route), ...
  const routes = readFileSync('/proc/net/route', 'utf8')
    .split('\n')
    .slice(1)
    .map((line) => line.trim().split(/\s+/));
  const hostInterface = routes.find((fields) => fields[1] === '00000000')?.[0] ?? 'eth0';
  return {
    bob,
    alice,
    secret,
    identifiers,
    short,
    nobodyIds,
    nodes: nodes.length > 0 ? nodes : [dbNode],
    since,
    cgroupnsDefault,
    hostInterface,
  };
}

// --- (b) bob's objects, before and after -------------------------------------------------------

interface ContainerInspect {
  Id: string;
  Name: string;
  State: Record<string, unknown>;
  RestartCount: number;
  Config: { Env?: string[]; Cmd?: string[]; Labels?: Record<string, string>; User?: string; Image?: string };
  HostConfig: Record<string, unknown>;
  Mounts: unknown[];
  NetworkSettings: { Networks?: Record<string, { IPAddress?: string }> };
  ExecIDs: string[] | null;
  Image: string;
}

/** bob's objects as the admin sees them: one line per object, compared whole. */
export async function bobState(call: Call, world: World): Promise<Map<string, string>> {
  const state = new Map<string, string>();
  const get = async (path: string) => {
    const answer = await call('admin', 'GET', path);
    return answer.status === 200 ? (JSON.parse(answer.text) as unknown) : `${answer.status} ${answer.text.slice(0, 200)}`;
  };
  await Promise.all([
    ...(['db', 'stopped', 'compose'] as const).map(async (object) => {
      const { id } = world.bob[object];
      const [inspect, changes] = await Promise.all([get(`/v1.41/containers/${id}/json`), get(`/v1.41/containers/${id}/changes`)]);
      if (typeof inspect === 'string') return state.set(object, inspect);
      const c = inspect as ContainerInspect;
      const s = c.State;
      state.set(
        object,
        JSON.stringify({
          name: c.Name,
          state: [s['Status'], s['Running'], s['Paused'], s['Restarting'], s['Pid'], s['ExitCode'], s['StartedAt'], s['FinishedAt']],
          restarts: c.RestartCount,
          config: [c.Config.Env, c.Config.Cmd, c.Config.Labels, c.Config.User, c.Image],
          host: c.HostConfig,
          mounts: c.Mounts,
          networks: Object.entries(c.NetworkSettings.Networks ?? {})
            .map(([name, endpoint]) => `${name}=${endpoint.IPAddress ?? ''}`)
            .sort(),
          execs: [...(c.ExecIDs ?? [])].sort(),
          changes,
        }),
      );
    }),
    (async () => {
      const n = (await get(`/v1.41/networks/${world.bob.net.id}`)) as Record<string, unknown> | string;
      state.set(
        'net',
        typeof n === 'string'
          ? n
          : JSON.stringify([n['Name'], n['Labels'], n['Options'], Object.keys((n['Containers'] as object | null) ?? {}).sort(), n['IPAM']]),
      );
    })(),
    ...world.nodes.map(async (node) => {
      const v = (await get(`/v1.41/volumes/${node}/bob-vol`)) as Record<string, unknown> | string;
      state.set(
        `vol@${node}`,
        typeof v === 'string' ? v : JSON.stringify([v['Name'], v['Labels'], v['Options'], v['Driver'], v['Mountpoint']]),
      );
    }),
    (async () => {
      const e = (await get(`/v1.41/exec/${world.bob.exec.id}/json`)) as Record<string, unknown> | string;
      state.set('exec', typeof e === 'string' ? e : JSON.stringify([e['Running'], e['ExitCode'], e['Pid'], e['ProcessConfig']]));
    })(),
    (async () => {
      const i = (await get(`/v1.41/images/sha256:${world.bob.img.id}/json`)) as Record<string, unknown> | string;
      state.set(
        'img',
        typeof i === 'string' ? i : JSON.stringify([i['Id'], [...((i['RepoTags'] as string[] | null) ?? [])].sort(), i['Config']]),
      );
    })(),
  ]);
  return state;
}

export function stateChanges(before: Map<string, string>, after: Map<string, string>): string[] {
  const changed: string[] = [];
  for (const [object, was] of before) {
    const now = after.get(object) ?? '(gone)';
    if (now !== was) changed.push(`${object}: ${was.slice(0, 400)} -> ${now.slice(0, 400)}`);
  }
  return changed;
}

/** After a change to bob's objects: puts back what can be put back (running, unpaused, named as before). */
export async function restoreBob(call: Call, world: World): Promise<void> {
  for (const object of ['db', 'compose'] as const) {
    const { id, name } = world.bob[object];
    const answer = await call('admin', 'GET', `/v1.41/containers/${id}/json`);
    if (answer.status !== 200) continue;
    const c = JSON.parse(answer.text) as ContainerInspect;
    if (c.Name !== `/${name}`) await call('admin', 'POST', `/v1.41/containers/${id}/rename?name=${name}`);
    if (c.State['Paused'] === true) await call('admin', 'POST', `/v1.41/containers/${id}/unpause`);
    else if (c.State['Running'] !== true) await call('admin', 'POST', `/v1.41/containers/${id}/start`);
    if (object === 'db' && !Object.keys(c.NetworkSettings.Networks ?? {}).some((n) => n.endsWith('bob-net')))
      await call('admin', 'POST', `/v1.41/networks/${world.bob.net.id}/connect`, { Container: id });
  }
}

// --- (c) what alice made ------------------------------------------------------------------------

export interface Inventory {
  containers: Set<string>;
  volumes: Set<string>;
  networks: Set<string>;
  images: Set<string>;
  tags: Set<string>;
  /** Exec IDs in alice's own containers. */
  execs: Set<string>;
}

export async function inventory(call: Call, world: World): Promise<Inventory> {
  const [containers, volumes, networks, images] = await Promise.all([
    jsonOf<Array<{ Id: string }>>(call, 'admin', 'GET', '/v1.41/containers/json?all=1'),
    jsonOf<{ Volumes: Array<{ Name: string }> | null }>(call, 'admin', 'GET', '/v1.41/volumes'),
    jsonOf<Array<{ Id: string }>>(call, 'admin', 'GET', '/v1.41/networks'),
    jsonOf<Array<{ Id: string; RepoTags: string[] | null }>>(call, 'admin', 'GET', '/v1.41/images/json?all=1'),
  ]);
  const execs = new Set<string>();
  for (const object of ['app', 'paused'] as const) {
    const answer = await call('admin', 'GET', `/v1.41/containers/${world.alice[object].id}/json`);
    if (answer.status === 200) for (const id of (JSON.parse(answer.text) as ContainerInspect).ExecIDs ?? []) execs.add(id);
  }
  return {
    containers: new Set(containers.map((c) => c.Id)),
    volumes: new Set((volumes.Volumes ?? []).map((v) => v.Name)),
    networks: new Set(networks.map((n) => n.Id)),
    images: new Set(images.map((i) => i.Id)),
    tags: new Set(images.flatMap((i) => i.RepoTags ?? [])),
    execs,
  };
}

const DEFAULT_CAPABILITIES = new Set(
  'CHOWN DAC_OVERRIDE FSETID FOWNER MKNOD NET_RAW SETGID SETUID SETFCAP SETPCAP NET_BIND_SERVICE SYS_CHROOT KILL AUDIT_WRITE'.split(' '),
);
const SAFE_SYSCTLS = new Set(BASELINE_SYSCTLS);
/** Local-driver volume types that mount something of the host's rather than a fresh directory. */
const HOST_VOLUME_TYPES = /^(proc|sysfs|devtmpfs|devpts|overlay|cgroup2?|debugfs|securityfs|bpf|mqueue|none|bind|ext[234]|xfs|btrfs|vfat)$/;

function underAllowed(path: string): boolean {
  const clean = path.replace(/\/+$/, '');
  return clean === ALLOWED_HOST_PATH || clean.startsWith(`${ALLOWED_HOST_PATH}/`);
}

/** What in a local-driver volume's options mounts a host resource. */
function volumeOptionEscalation(options: Record<string, string> | null | undefined): string | undefined {
  if (!options) return undefined;
  const type = (options['type'] ?? '').trim();
  const o = options['o'] ?? '';
  const device = options['device'] ?? '';
  if (/(^|,)r?bind($|,)/.test(o) && !underAllowed(device)) return `o=${o} device=${device}`;
  if (type !== '' && type !== 'tmpfs' && HOST_VOLUME_TYPES.test(type)) return `type=${type}${device ? ` device=${device}` : ''}`;
  if (type === '' && device !== '') return `device=${device}`;
  return undefined;
}

/** The host escalations and reaches into another team's objects of one of alice's containers. */
export async function containerEscalations(call: Call, world: World, id: string, mine: ReadonlySet<string>): Promise<string[]> {
  const answer = await call('admin', 'GET', `/v1.41/containers/${id}/json`);
  if (answer.status !== 200) return [];
  const c = JSON.parse(answer.text) as ContainerInspect & {
    Mounts: Array<{ Type: string; Source: string; Name?: string; Driver?: string; RW?: boolean }>;
  };
  const h = c.HostConfig as Record<string, unknown>;
  const found: string[] = [];
  const list = (key: string) => (Array.isArray(h[key]) ? (h[key] as unknown[]).map(String) : []);
  const bobs = new Set(['db', 'stopped', 'compose'].flatMap((o) => [world.bob[o as BobObject].id, world.bob[o as BobObject].name]));
  const isMine = (ref: string) =>
    [...mine].some((own) => own === ref || own.startsWith(ref)) || ref.startsWith('alice-') || ref.startsWith('gen-');
  if (h['Privileged'] === true) found.push('Privileged');
  for (const cap of list('CapAdd')) {
    const name = cap.toUpperCase().replace(/^CAP_/, '');
    if (!DEFAULT_CAPABILITIES.has(name)) found.push(`CapAdd ${name}`);
  }
  if (list('Devices').length > 0 || (Array.isArray(h['Devices']) && (h['Devices'] as unknown[]).length > 0)) found.push('Devices');
  if (list('DeviceCgroupRules').length > 0) found.push('DeviceCgroupRules');
  for (const key of ['NetworkMode', 'PidMode', 'IpcMode', 'UTSMode', 'UsernsMode', 'CgroupnsMode']) {
    const mode = String(h[key] ?? '');
    if (mode === 'host' && !(key === 'CgroupnsMode' && world.cgroupnsDefault === 'host')) found.push(`${key}=host`);
    const joined = /^container:(.+)$/.exec(mode)?.[1];
    if (joined && !isMine(joined)) found.push(`${key}=container:${bobs.has(joined) ? "bob's" : joined}`);
  }
  for (const opt of list('SecurityOpt')) {
    const [key = '', value = ''] = opt.split(/[=:](.*)/s);
    if (/unconfined/i.test(value)) found.push(`SecurityOpt ${key}=unconfined`);
    else if (key === 'seccomp' && value.trim().startsWith('{')) found.push('SecurityOpt seccomp=<inline profile>');
    else if (key === 'systempaths' || (key === 'label' && /disable/.test(value))) found.push(`SecurityOpt ${opt}`);
  }
  if (String(h['CgroupParent'] ?? '') !== '') found.push(`CgroupParent ${String(h['CgroupParent'])}`);
  for (const name of Object.keys((h['Sysctls'] as Record<string, string> | null) ?? {}))
    if (!SAFE_SYSCTLS.has(name.replaceAll('/', '.'))) found.push(`Sysctls ${name}`);
  for (const ref of list('VolumesFrom')) if (!isMine(ref.replace(/:(ro|rw)$/, ''))) found.push('VolumesFrom another team');
  for (const link of list('Links')) if (!isMine(link.split(':')[0]!.replace(/^\//, ''))) found.push('Links another team');
  // what the create asked of the local driver, whether or not the volume is still there
  for (const mount of (h['Mounts'] as Array<{ VolumeOptions?: { DriverConfig?: { Options?: Record<string, string> } } }> | null) ?? []) {
    const escalation = volumeOptionEscalation(mount.VolumeOptions?.DriverConfig?.Options);
    if (escalation) found.push(`volume ${escalation}`);
  }
  for (const mount of c.Mounts ?? []) {
    if (mount.Type === 'bind' && !underAllowed(mount.Source)) found.push(`bind of ${mount.Source}`);
    // an allowed host path is mounted read-only unless the operator's entry says otherwise (issue 42 item 3)
    else if (mount.Type === 'bind' && mount.RW === true) found.push(`writable bind of ${mount.Source}`);
    if (mount.Type === 'volume' && mount.Name === 'bob-vol') found.push("mounts bob's volume");
    if (mount.Type === 'volume' && mount.Name && (mount.Driver ?? 'local') === 'local') {
      const volume = await call('admin', 'GET', `/v1.41/volumes/${mount.Name}`);
      if (volume.status === 200) {
        const escalation = volumeOptionEscalation((JSON.parse(volume.text) as { Options?: Record<string, string> }).Options);
        if (escalation) found.push(`volume ${escalation}`);
      }
    }
  }
  if ((c.Config.Env ?? []).some((line) => line.includes(world.secret))) found.push("carries bob's secret in its Env");
  return found;
}

/** What of the last attempt is left: alice's new objects, judged, then removed as the admin. */
export async function judgeAndSweep(call: Call, world: World, known: Inventory): Promise<string[]> {
  const now = await inventory(call, world);
  const found: string[] = [];
  const mine = new Set([world.alice.app.id, world.alice.paused.id, ...[...now.containers].filter((id) => !known.containers.has(id))]);
  for (const id of now.containers) {
    if (known.containers.has(id)) continue;
    for (const escalation of await containerEscalations(call, world, id, mine)) found.push(`container: ${escalation}`);
    await call('admin', 'DELETE', `/v1.41/containers/${id}?force=1&v=1`);
  }
  for (const id of now.execs) {
    if (known.execs.has(id)) continue;
    const answer = await call('admin', 'GET', `/v1.41/exec/${id}/json`);
    if (answer.status === 200 && (JSON.parse(answer.text) as { Privileged?: boolean }).Privileged === true) found.push('exec: Privileged');
  }
  for (const name of now.volumes) {
    if (known.volumes.has(name)) continue;
    const answer = await call('admin', 'GET', `/v1.41/volumes/${name}`);
    if (answer.status === 200) {
      const escalation = volumeOptionEscalation((JSON.parse(answer.text) as { Options?: Record<string, string> }).Options);
      if (escalation) found.push(`volume: ${escalation}`);
    }
    await call('admin', 'DELETE', `/v1.41/volumes/${name}?force=1`);
  }
  for (const id of now.networks) {
    if (known.networks.has(id)) continue;
    // a network on the Linux bridge of bob's network puts alice's containers on his containers' segment
    const answer = await call('admin', 'GET', `/v1.41/networks/${id}`);
    const network = answer.status === 200 ? (JSON.parse(answer.text) as { Driver?: string; Options?: Record<string, string> }) : {};
    if (network.Options?.['com.docker.network.bridge.name'] === `br-${world.bob.net.id.slice(0, 12)}`)
      found.push("network: on the bridge of bob's network");
    // macvlan and ipvlan networks attach to the host's interfaces
    if (network.Driver === 'macvlan' || network.Driver === 'ipvlan') found.push(`network: driver ${network.Driver}`);
    await call('admin', 'DELETE', `/v1.41/networks/${id}`);
  }
  for (const tag of now.tags) if (!known.tags.has(tag)) await call('admin', 'DELETE', `/v1.41/images/${tag}`);
  for (const id of now.images) if (!known.images.has(id)) await call('admin', 'DELETE', `/v1.41/images/${id}?force=1`);
  return found;
}
