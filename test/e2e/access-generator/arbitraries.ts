import fc from 'fast-check';
import type { Attack, Family, Framing, PathForm } from './attack.js';
import { ALLOWED_HOST_PATH } from './world.js';

/**
 * fast-check arbitraries of attacks from alice on bob's objects: any route of the action catalogue
 * (core/src/access/request-actions.ts, docs/access-control.md), any method, bob's objects named by
 * ID, ID prefix, name or node/name in the path, the query (filters of every key) and the body,
 * create bodies in the forms dockerd reads (fields moved, re-cased, duplicated, nulled), framings a
 * client library would not choose, and the host escalations admission must refuse. Every choice
 * shrinks towards the plainest request (the first option of each list).
 */

type Arb<T> = fc.Arbitrary<T>;

export interface AttackOptions {
  /** Families to leave out (an open hole's class, named by the issue item that holds it). */
  readonly excludeFamilies?: readonly Family[];
  readonly excludeFramings?: readonly Framing[];
  /** Create-body features to leave out (same reason). */
  readonly excludeFeatures?: readonly string[];
  readonly excludeRoutes?: readonly string[];
  /** Network creates that name bob's network (`Name: node/bob-net`). */
  readonly excludeNetworkNames?: boolean;
  /** Network creates with driver options of the host's (a bridge's name, macvlan and ipvlan parents). */
  readonly excludeNetworkOptions?: boolean;
}

const refs = (objects: readonly string[], spellings: readonly string[]) =>
  fc.constantFrom(...objects.flatMap((object) => spellings.map((spelling) => `«b:${object}:${spelling}»`)));

const container = refs(['db', 'stopped', 'compose'], ['name', 'id', 'p12', 'short', 'node']);
const exec = refs(['exec'], ['id', 'p12', 'short']);
const network = fc.oneof(
  { arbitrary: refs(['net'], ['name', 'id', 'p12', 'short', 'node']), weight: 4 },
  fc.constantFrom('«b:db:bridge»', '«b:compose:bridge»'),
);
const volume = refs(['vol'], ['name', 'node']);
const image = refs(['img'], ['name', 'id', 'p12', 'short', 'node']);
const LABELS = [
  'com.docker.swarm.owner=bob',
  'com.docker.swarm.team=team-b',
  'app=bob-db',
  'com.docker.compose.project=bobproj',
  'com.docker.compose.service=db',
  'com.docker.swarm.owner',
];
const label = fc.constantFrom(...LABELS);
const anything = fc.oneof(
  container,
  network,
  volume,
  image,
  exec,
  label,
  fc.constantFrom('bob', 'team-b', 'true', 'running', 'exited', '0'),
);

const FILTER_VALUES: Readonly<Record<string, Arb<string>>> = {
  id: fc.oneof(refs(['db', 'stopped', 'compose', 'net'], ['id', 'p12', 'short'])),
  name: fc.oneof(refs(['db', 'stopped', 'compose', 'net', 'vol'], ['name', 'node']), fc.constantFrom('bob', 'bobproj')),
  label,
  'label!': label,
  network,
  volume,
  before: fc.oneof(container, image),
  since: fc.oneof(container, image),
  ancestor: image,
  reference: image,
  container,
  image,
};

function filters(keys: readonly string[]): Arb<string> {
  const entry = fc.constantFrom(...keys).chain((key) => fc.tuple(fc.constant(key), FILTER_VALUES[key] ?? anything));
  return fc.tuple(fc.array(entry, { minLength: 1, maxLength: 3 }), fc.boolean()).map(([entries, listForm]) => {
    const map: Record<string, string[] | Record<string, boolean>> = {};
    for (const [key, value] of entries) {
      if (listForm) map[key] = [...((map[key] as string[] | undefined) ?? []), value];
      else map[key] = { ...((map[key] as Record<string, boolean> | undefined) ?? {}), [value]: true };
    }
    return JSON.stringify(map);
  });
}

const FILTER_KEYS = {
  containers: [
    'id',
    'name',
    'label',
    'network',
    'volume',
    'before',
    'since',
    'ancestor',
    'status',
    'exited',
    'expose',
    'publish',
    'health',
    'is-task',
  ],
  images: ['reference', 'before', 'since', 'label', 'dangling'],
  networks: ['id', 'name', 'label', 'driver', 'scope', 'type', 'dangling'],
  volumes: ['name', 'label', 'driver', 'dangling'],
  events: ['container', 'image', 'network', 'volume', 'label', 'type', 'event', 'daemon', 'node', 'scope'],
  prune: ['until', 'label', 'label!'],
} as const;

const withFilters = (keys: readonly string[], extra: ReadonlyArray<readonly [string, string]> = []) =>
  fc.option(filters(keys), { nil: undefined }).map((value) => [...extra, ...(value === undefined ? [] : [['filters', value] as const])]);

// --- create bodies -----------------------------------------------------------------------------

interface Draft {
  config: Record<string, unknown>;
  host: Record<string, unknown>;
}

interface Refs {
  readonly c: string;
  readonly n: string;
  readonly v: string;
  readonly i: string;
}

type Feature = (draft: Draft, refs: Refs) => void;
const push = (target: Record<string, unknown>, key: string, ...values: unknown[]) => {
  target[key] = [...((target[key] as unknown[] | undefined) ?? []), ...values];
};
const volumeMount = (target: string, options: Record<string, string>) => ({
  Type: 'volume',
  Source: `gen-${options['type'] ?? 'v'}`,
  Target: target,
  VolumeOptions: { DriverConfig: { Name: 'local', Options: options } },
});

/** Host escalations and references to bob's objects a create body can carry, by name. */
export const FEATURES: Readonly<Record<string, Feature>> = {
  Privileged: (d) => (d.host['Privileged'] = true),
  'CapAdd SYS_ADMIN': (d) => push(d.host, 'CapAdd', 'SYS_ADMIN'),
  'CapAdd ALL': (d) => push(d.host, 'CapAdd', 'ALL'),
  'CapAdd cap_sys_ptrace': (d) => push(d.host, 'CapAdd', 'cap_sys_ptrace'),
  'Binds /': (d) => push(d.host, 'Binds', '/:/host'),
  'Binds /etc ro': (d) => push(d.host, 'Binds', '/etc:/x:ro'),
  'Binds allowed path': (d) => push(d.host, 'Binds', `${ALLOWED_HOST_PATH}:/d:ro`),
  // writable, a tenant could plant a symlink there that a later bind follows to the host's root (issue 42 hole 6)
  'Binds allowed path writable': (d) => push(d.host, 'Binds', `${ALLOWED_HOST_PATH}:/d`),
  Devices: (d) => push(d.host, 'Devices', { PathOnHost: '/dev/mem', PathInContainer: '/dev/mem', CgroupPermissions: 'rwm' }),
  DeviceCgroupRules: (d) => push(d.host, 'DeviceCgroupRules', 'a *:* rwm'),
  'seccomp unconfined': (d) => push(d.host, 'SecurityOpt', 'seccomp=unconfined'),
  'seccomp inline profile': (d) => push(d.host, 'SecurityOpt', 'seccomp={"defaultAction":"SCMP_ACT_ALLOW"}'),
  'apparmor unconfined': (d) => push(d.host, 'SecurityOpt', 'apparmor=unconfined'),
  'systempaths unconfined': (d) => push(d.host, 'SecurityOpt', 'systempaths=unconfined'),
  'label disable': (d) => push(d.host, 'SecurityOpt', 'label=disable'),
  'NetworkMode host': (d) => (d.host['NetworkMode'] = 'host'),
  'PidMode host': (d) => (d.host['PidMode'] = 'host'),
  'IpcMode host': (d) => (d.host['IpcMode'] = 'host'),
  'UTSMode host': (d) => (d.host['UTSMode'] = 'host'),
  'UsernsMode host': (d) => (d.host['UsernsMode'] = 'host'),
  'CgroupnsMode host': (d) => (d.host['CgroupnsMode'] = 'host'),
  'CgroupParent /': (d) => (d.host['CgroupParent'] = '/'),
  "CgroupParent bob's": (d) => (d.host['CgroupParent'] = '/docker/«b:db:id»'),
  'Mounts bind /': (d) => push(d.host, 'Mounts', { Type: 'bind', Source: '/', Target: '/h' }),
  'Mounts volume type=proc': (d) => push(d.host, 'Mounts', volumeMount('/p', { type: 'proc', device: 'proc' })),
  'Mounts volume o=bind /': (d) => push(d.host, 'Mounts', volumeMount('/h', { type: 'none', o: 'bind', device: '/' })),
  'Mounts volume type=sysfs': (d) => push(d.host, 'Mounts', volumeMount('/s', { type: 'sysfs', device: 'sysfs' })),
  Sysctls: (d) => (d.host['Sysctls'] = { 'kernel.msgmax': '65536' }),
  Tmpfs: (d) => (d.host['Tmpfs'] = { '/run': 'rw' }),
  VolumesFrom: (d, r) => push(d.host, 'VolumesFrom', r.c),
  'VolumesFrom :ro': (d, r) => push(d.host, 'VolumesFrom', `${r.c}:ro`),
  Links: (d, r) => push(d.host, 'Links', `${r.c}:peer`),
  'NetworkMode container:': (d, r) => (d.host['NetworkMode'] = `container:${r.c}`),
  'PidMode container:': (d, r) => (d.host['PidMode'] = `container:${r.c}`),
  'IpcMode container:': (d, r) => (d.host['IpcMode'] = `container:${r.c}`),
  'NetworkMode network': (d, r) => (d.host['NetworkMode'] = r.n),
  'Binds volume': (d, r) => push(d.host, 'Binds', `${r.v}:/d`),
  'Mounts volume': (d, r) => push(d.host, 'Mounts', { Type: 'volume', Source: r.v, Target: '/d' }),
  NetworkingConfig: (d, r) => (d.config['NetworkingConfig'] = { EndpointsConfig: { [r.n]: {} } }),
  'affinity:container==': (d, r) => push(d.config, 'Env', `affinity:container==${r.c}`),
  'affinities label': (d, r) => (d.config['Labels'] = { 'com.docker.swarm.affinities': `["container==${r.c}"]` }),
  "bob's image": (d, r) => (d.config['Image'] = r.i),
  'forged owner': (d) => (d.config['Labels'] = { 'com.docker.swarm.owner': 'bob', 'com.docker.swarm.team': 'team-b' }),
};

/** Where the HostConfig fields go, as dockerd reads them all. */
const FORMS = [
  'HostConfig',
  'top-level',
  'null HostConfig',
  'hostconfig',
  'lower-case fields',
  'benign HostConfig last',
  'benign HostConfig first',
  'split',
  'null fields, then re-cased',
  'HostConfig, then hostConfig',
] as const;
type Form = (typeof FORMS)[number];

function entry(key: string, value: unknown): string {
  return `${JSON.stringify(key)}:${JSON.stringify(value)}`;
}

function lowerKeys(host: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(host).map(([key, value]) => [key.toLowerCase(), value]));
}

export function createBodyText(draft: Draft, form: Form): string {
  const config = Object.entries(draft.config).map(([key, value]) => entry(key, value));
  const host = draft.host;
  const fields = Object.entries(host).map(([key, value]) => entry(key, value));
  const hostEntries: Record<Form, string[]> = {
    HostConfig: [entry('HostConfig', host)],
    'top-level': fields,
    'null HostConfig': [...fields, entry('HostConfig', null)],
    hostconfig: [entry('hostconfig', host)],
    'lower-case fields': [entry('HostConfig', lowerKeys(host))],
    'benign HostConfig last': [entry('HostConfig', host), entry('HostConfig', {})],
    'benign HostConfig first': [entry('HostConfig', {}), entry('HostConfig', host)],
    // Go's decoder leaves a field a null does not set, then takes the re-cased key for the same field
    'null fields, then re-cased': [
      `${JSON.stringify('HostConfig')}:{${Object.entries(host)
        .map(([key, value]) => `${entry(key, null)},${entry(key.toLowerCase(), value)}`)
        .join(',')}}`,
    ],
    // both keys decode into the one HostConfig: the second adds to the first
    'HostConfig, then hostConfig': [entry('HostConfig', {}), entry('hostConfig', host)],
    split: [
      ...fields.filter((_, i) => i % 2 === 0),
      entry('HostConfig', Object.fromEntries(Object.entries(host).filter((_, i) => i % 2 === 1))),
    ],
  };
  return `{${[...config, ...hostEntries[form]].join(',')}}`;
}

function createBody(options: AttackOptions): Arb<string> {
  const names = Object.keys(FEATURES).filter((name) => !(options.excludeFeatures ?? []).includes(name));
  return fc
    .record({
      features: fc.uniqueArray(fc.constantFrom(...names), { minLength: 0, maxLength: 3 }),
      form: fc.constantFrom(...FORMS),
      refs: fc.record({ c: container, n: network, v: volume, i: image }),
    })
    .map(({ features, form, refs: r }) => {
      const draft: Draft = { config: { Image: 'busybox:local', Cmd: ['sleep', '30'] }, host: {} };
      for (const name of features) FEATURES[name]!(draft, r);
      return createBodyText(draft, form);
    });
}

// --- routes -------------------------------------------------------------------------------------

interface Route {
  readonly family: Family;
  readonly method: string;
  /** With `{c}` (a container), `{e}` (an exec), `{n}`, `{v}`, `{i}` for the object the path names. */
  readonly path: string;
  readonly query?: Arb<ReadonlyArray<readonly [string, string]>>;
  readonly body?: Arb<Attack['body']>;
  readonly contentType?: Attack['contentType'];
  readonly asks?: (query: ReadonlyArray<readonly [string, string]>) => string[];
  /** How often it is drawn against the others (1 unless said): bodies the engine executes are the richest ground. */
  readonly weight?: number;
}

const q = (...pairs: Array<readonly [string, string]>) => fc.constant(pairs);
const json = (text: Arb<string>): Arb<Attack['body']> => text.map((t) => ({ type: 'json' as const, text: t }));
const jsonOf = (value: Arb<unknown>) => json(value.map((v) => JSON.stringify(v)));
const keyCase = fc.constantFrom('as-is', 'lower');
const recase = (value: Record<string, unknown>, how: string) => (how === 'lower' ? lowerKeys(value) : value);

const execBody = fc.record({ privileged: fc.boolean(), root: fc.boolean(), how: keyCase }).map(({ privileged, root, how }) =>
  recase(
    {
      Cmd: ['cat', '/proc/1/environ'],
      AttachStdout: true,
      AttachStderr: true,
      ...(privileged ? { Privileged: true } : {}),
      ...(root ? { User: '0' } : {}),
    },
    how,
  ),
);

const VOLUME_OPTIONS: ReadonlyArray<Record<string, string>> = [
  {},
  { type: 'proc', device: 'proc' },
  { type: 'none', o: 'bind', device: '/' },
  { type: 'sysfs', device: 'sysfs' },
  { type: 'devtmpfs', device: 'devtmpfs' },
  { type: 'overlay', device: 'overlay', o: 'lowerdir=/etc,upperdir=/tmp/u,workdir=/tmp/w' },
  { o: 'bind', device: '/etc' },
  { type: 'tmpfs', device: 'tmpfs', o: 'size=1m' },
];

const volumeCreate = fc
  .record({ name: fc.oneof(fc.constant('«n»'), volume), options: fc.constantFrom(...VOLUME_OPTIONS), how: keyCase })
  .map(({ name, options, how }) => recase({ Name: name, Driver: 'local', DriverOpts: options }, how));

const networkCreate = (options: AttackOptions) =>
  fc
    .record({
      // a name of her own on the node of bob's network (`node/gen-b`), or bob's network's name
      name: options.excludeNetworkNames
        ? fc.constantFrom('«n»', '«b:net:ownnode»')
        : fc.oneof(fc.constantFrom('«n»', '«b:net:ownnode»'), refs(['net'], ['name', 'node'])),
      // the host's default bridge, or the Linux bridge of bob's network (`br-` and its ID's first 12 characters):
      // dockerd's conflict answer names the network that holds a bridge name
      bridge: options.excludeNetworkOptions ? fc.constant(undefined) : fc.constantFrom(undefined, 'docker0', 'br-«b:net:p12»'),
      // macvlan and ipvlan networks attach to the host's interfaces
      driver: options.excludeNetworkOptions ? fc.constant('bridge') : fc.constantFrom('bridge', 'macvlan', 'ipvlan'),
      unique: fc.boolean(),
    })
    .map(({ name, bridge, driver, unique }) => ({
      Name: name,
      Driver: driver,
      ...(unique ? { CheckDuplicate: true } : {}),
      ...(driver !== 'bridge' ? { Options: { parent: '«i»' } } : bridge ? { Options: { 'com.docker.network.bridge.name': bridge } } : {}),
    }));

const BUILD_NETWORKS = ['default', 'host', 'container:«b:db:name»', 'container:«b:db:id»', '«b:net:name»', 'none'];
const buildQuery = fc
  .record({
    networkmode: fc.constantFrom(...BUILD_NETWORKS),
    cgroupparent: fc.constantFrom('', '/', '/docker/«b:db:id»'),
    remote: fc.boolean(),
    extra: fc.constantFrom<Array<readonly [string, string]>>(
      [],
      [['isolation', 'hyperv']],
      [['buildargs', '{"X":"«b:db:name»"}']],
      [['cachefrom', '["«b:img:name»"]']],
    ),
  })
  .map(({ networkmode, cgroupparent, remote, extra }) => [
    ['t', '«n»:1'] as const,
    ['networkmode', networkmode] as const,
    ...(cgroupparent ? [['cgroupparent', cgroupparent] as const] : []),
    ...(remote ? [['remote', '«u»'] as const] : []),
    ...extra,
  ]);
const buildAsks = (query: ReadonlyArray<readonly [string, string]>) =>
  query.flatMap(([key, value]) =>
    key === 'networkmode' && (value === 'host' || value.startsWith('container:'))
      ? [`build networkmode=${value}`]
      : key === 'cgroupparent'
        ? [`build cgroupparent=${value}`]
        : [],
  );

/** A build whose RUN step prints `42-ran-x` when it runs (the build check looks for it; the command line shows `$((6*7))`). */
export const DOCKERFILE = 'FROM busybox:local\nRUN echo $((6*7))-ran-x\n';

function routes(options: AttackOptions): Route[] {
  const containerVerbs: Array<[string, string, Arb<ReadonlyArray<readonly [string, string]>>?]> = [
    ['GET', 'json', fc.constantFrom<Array<readonly [string, string]>>([], [['size', '1']])],
    ['GET', 'top'],
    [
      'GET',
      'logs',
      fc.constantFrom<Array<readonly [string, string]>>(
        [
          ['stdout', '1'],
          ['stderr', '1'],
        ],
        [
          ['stdout', '1'],
          ['timestamps', '1'],
          ['tail', 'all'],
        ],
        [
          ['stdout', '1'],
          ['follow', '1'],
        ],
      ),
    ],
    ['GET', 'changes'],
    ['GET', 'export'],
    ['GET', 'stats', q(['stream', '0'])],
    ['GET', 'attach/ws', q(['stream', '1'], ['stdout', '1'])],
    ['GET', 'archive', q(['path', '/etc/hostname'])],
    ['HEAD', 'archive', q(['path', '/etc'])],
    ['POST', 'start'],
    ['POST', 'stop', q(['t', '0'])],
    ['POST', 'restart', q(['t', '0'])],
    ['POST', 'kill', fc.constantFrom<Array<readonly [string, string]>>([], [['signal', 'SIGSTOP']])],
    ['POST', 'pause'],
    ['POST', 'unpause'],
    ['POST', 'wait', q(['condition', 'next-exit'])],
    ['POST', 'resize', q(['h', '10'], ['w', '10'])],
    ['POST', 'attach', q(['stream', '1'], ['stdout', '1'], ['logs', '1'])],
    ['POST', 'rename', q(['name', '«n»'])],
  ];
  const list: Route[] = [
    ...containerVerbs.map(([method, verb, query]): Route => ({
      family: 'container',
      method,
      path: `/containers/{c}/${verb}`,
      ...(query ? { query } : {}),
    })),
    {
      family: 'container',
      method: 'DELETE',
      path: '/containers/{c}',
      query: fc.constantFrom<Array<readonly [string, string]>>(
        [
          ['force', '1'],
          ['v', '1'],
        ],
        [],
        [['link', '1']],
      ),
    },
    {
      family: 'container',
      method: 'PUT',
      path: '/containers/{c}/archive',
      query: q(['path', '/tmp']),
      body: fc.constant({ type: 'tar', file: 'planted', content: 'alice was here\n' }),
      contentType: 'tar',
    },
    { family: 'container', method: 'POST', path: '/containers/{c}/copy', body: jsonOf(fc.constant({ Resource: '/etc/hostname' })) },
    {
      family: 'container',
      method: 'POST',
      path: '/containers/{c}/update',
      body: jsonOf(
        fc.constantFrom(
          { Memory: 33554432, MemorySwap: -1 },
          { CpuShares: 2 },
          { RestartPolicy: { Name: 'always' } },
          { memory: 33554432 },
        ),
      ),
    },
    { family: 'exec', method: 'POST', path: '/containers/{c}/exec', body: jsonOf(execBody), weight: 3 },
    // in her own container: what the exec may run with is admission's (no --privileged at baseline)
    { family: 'exec', method: 'POST', path: '/containers/«a:app:name»/exec', body: jsonOf(execBody) },
    {
      family: 'container',
      method: 'POST',
      path: '/commit',
      query: container.map(
        (c) =>
          [
            ['container', c],
            ['repo', '«n»'],
            ['tag', '1'],
          ] as const,
      ),
    },
    { family: 'container', method: 'GET', path: '/containers/json', query: withFilters(FILTER_KEYS.containers, [['all', '1']]) },
    { family: 'container', method: 'POST', path: '/containers/prune', query: withFilters(FILTER_KEYS.prune) },
    {
      family: 'create',
      method: 'POST',
      path: '/containers/create',
      query: q(['name', '«n»']),
      body: json(createBody(options)),
      weight: 14,
    },
    { family: 'exec', method: 'GET', path: '/exec/{e}/json' },
    {
      family: 'exec',
      method: 'POST',
      path: '/exec/{e}/start',
      body: jsonOf(fc.constantFrom({ Detach: true, Tty: false }, { Detach: false, Tty: false })),
    },
    { family: 'exec', method: 'POST', path: '/exec/{e}/resize', query: q(['h', '10'], ['w', '10']) },
    { family: 'image', method: 'GET', path: '/images/json', query: withFilters(FILTER_KEYS.images, [['all', '1']]) },
    { family: 'image', method: 'GET', path: '/images/{i}/json' },
    { family: 'image', method: 'GET', path: '/images/{i}/history' },
    { family: 'image', method: 'GET', path: '/images/{i}/get' },
    { family: 'image', method: 'GET', path: '/images/get', query: image.map((i) => [['names', i]] as const) },
    { family: 'image', method: 'POST', path: '/images/{i}/tag', query: q(['repo', '«n»'], ['tag', '1']) },
    {
      family: 'image',
      method: 'DELETE',
      path: '/images/{i}',
      query: fc.constantFrom<Array<readonly [string, string]>>([], [['force', '1']], [['noprune', '1']]),
    },
    { family: 'image', method: 'POST', path: '/images/prune', query: withFilters(FILTER_KEYS.prune) },
    {
      family: 'image',
      method: 'POST',
      path: '/images/create',
      query: fc.oneof(
        image.map((i) => [['fromImage', i]] as const),
        fc.constant([
          ['fromSrc', '«u»'],
          ['repo', '«n»'],
        ] as const),
      ),
    },
    { family: 'image', method: 'GET', path: '/distribution/{i}/json' },
    {
      family: 'build',
      method: 'POST',
      path: '/build',
      query: buildQuery,
      body: fc.constant({ type: 'tar', file: 'Dockerfile', content: DOCKERFILE }),
      contentType: 'tar',
      asks: buildAsks,
      weight: 3,
    },
    { family: 'network', method: 'GET', path: '/networks', query: withFilters(FILTER_KEYS.networks) },
    {
      family: 'network',
      method: 'GET',
      path: '/networks/{n}',
      query: fc.constantFrom<Array<readonly [string, string]>>([], [['verbose', 'true']]),
    },
    { family: 'network', method: 'DELETE', path: '/networks/{n}' },
    { family: 'network', method: 'POST', path: '/networks/create', body: jsonOf(networkCreate(options)) },
    {
      family: 'network',
      method: 'POST',
      path: '/networks/{n}/connect',
      body: jsonOf(
        fc.oneof(
          fc.constant({ Container: '«a:app:name»' }),
          container.map((c) => ({ Container: c })),
        ),
      ),
    },
    {
      family: 'network',
      method: 'POST',
      path: '/networks/«a:net:name»/connect',
      body: jsonOf(container.map((c) => ({ Container: c, EndpointConfig: { Aliases: ['x'] } }))),
    },
    {
      family: 'network',
      method: 'POST',
      path: '/networks/{n}/disconnect',
      body: jsonOf(container.map((c) => ({ Container: c, Force: true }))),
    },
    { family: 'network', method: 'POST', path: '/networks/prune', query: withFilters(FILTER_KEYS.prune) },
    { family: 'volume', method: 'GET', path: '/volumes', query: withFilters(FILTER_KEYS.volumes) },
    { family: 'volume', method: 'GET', path: '/volumes/{v}' },
    {
      family: 'volume',
      method: 'DELETE',
      path: '/volumes/{v}',
      query: fc.constantFrom<Array<readonly [string, string]>>([], [['force', '1']]),
    },
    { family: 'volume', method: 'POST', path: '/volumes/create', body: jsonOf(volumeCreate), weight: 4 },
    { family: 'volume', method: 'POST', path: '/volumes/prune', query: withFilters(FILTER_KEYS.prune) },
    {
      family: 'system',
      method: 'GET',
      path: '/events',
      query: withFilters(FILTER_KEYS.events, [
        ['since', '«t:since»'],
        ['until', '«t:now»'],
      ]),
    },
    { family: 'system', method: 'GET', path: '/system/df' },
    { family: 'system', method: 'GET', path: '/info' },
    { family: 'system', method: 'GET', path: '/version' },
    { family: 'system', method: 'GET', path: '/_ping' },
    { family: 'swarm', method: 'POST', path: '/_swarm/v1/explain', body: json(createBody(options)), weight: 2 },
    { family: 'swarm', method: 'GET', path: '/swarm/ui/api/containers/{c}' },
    {
      family: 'swarm',
      method: 'POST',
      path: '/swarm/ui/api/explain',
      body: jsonOf(
        fc.oneof(
          container.map((c) => ({ container: c })),
          container.map((c) => ({ args: ['-e', `affinity:container==${c}`, 'busybox:local'] })),
        ),
      ),
    },
    { family: 'plugin', method: 'GET', path: '/plugins' },
    { family: 'plugin', method: 'GET', path: '/plugins/{c}/json' },
    { family: 'other', method: 'GET', path: '/services' },
    { family: 'other', method: 'GET', path: '/containers/{c}/no-such-operation' },
  ];
  return list.filter(
    (route) =>
      !(options.excludeFamilies ?? []).includes(route.family) && !(options.excludeRoutes ?? []).includes(`${route.method} ${route.path}`),
  );
}

const OBJECT_SLOT: ReadonlyArray<readonly [string, Arb<string>]> = [
  ['{c}', container],
  ['{e}', exec],
  ['{n}', network],
  ['{v}', volume],
  ['{i}', image],
];

const weighted = <T>(...choices: Array<readonly [T, number]>): Arb<T> =>
  fc.oneof(...choices.map(([value, weight]) => ({ arbitrary: fc.constant(value), weight })));

export function attacks(options: AttackOptions = {}): Arb<Attack> {
  const framings = (['length', 'chunked', 'upgrade', 'smuggle', 'pipeline'] as const).filter(
    (f) => !(options.excludeFramings ?? []).includes(f),
  );
  const framing = weighted<Framing>(...framings.map((f): readonly [Framing, number] => [f, f === 'length' ? 6 : 1]));
  const pathForm = weighted<PathForm>(['plain', 12], ['percent', 1], ['dotdot', 1], ['double-slash', 1], ['trailing-slash', 1]);
  const version = weighted(['/v1.41', 12], ['', 2], ['/v1.24', 1], ['/v1.40', 1], ['/v1.43', 1]);
  // another method than the route's, now and then (the router and the access check must agree on it)
  const method = fc.oneof(
    { arbitrary: fc.constant(undefined), weight: 10 },
    { arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'HEAD', 'PATCH', 'OPTIONS'), weight: 1 },
  );
  const route = fc.oneof(...routes(options).map((r) => ({ arbitrary: fc.constant(r), weight: r.weight ?? 1 })));
  return route.chain((route) => {
    const slot = OBJECT_SLOT.find(([name]) => route.path.includes(name));
    return fc
      .record({
        ref: slot ? slot[1] : fc.constant(''),
        query: route.query ?? fc.constant([] as ReadonlyArray<readonly [string, string]>),
        body: route.body ?? fc.constant(undefined),
        contentType:
          route.body && route.contentType !== 'tar'
            ? weighted<Attack['contentType']>(['json', 8], ['text', 1], ['none', 1])
            : fc.constant(route.contentType ?? ('none' as const)),
        framing,
        pathForm,
        version,
        method,
      })
      .map((g): Attack => ({
        family: route.family,
        route: `${route.method} ${route.path}`,
        method: g.method ?? route.method,
        version: g.version,
        path: slot ? route.path.replace(slot[0], g.ref) : route.path,
        pathForm: slot ? g.pathForm : 'plain',
        query: g.query,
        ...(g.body ? { body: g.body } : {}),
        contentType: g.contentType,
        framing: g.framing,
        asks: route.asks?.(g.query) ?? [],
      }));
  });
}
