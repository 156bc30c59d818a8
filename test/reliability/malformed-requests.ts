/**
 * Seeded malformed Docker API requests: wrong paths (`..`, `//`, bad escapes, encoded slashes),
 * wrong methods, bad query values, broken or wrongly typed JSON bodies, bad headers. The same seed
 * gives the same requests, so a failure can be replayed.
 */

export interface FuzzRequest {
  method: string;
  target: string;
  headers: Record<string, string>;
  body?: string;
}

/** Names that exist when the fuzz runs (so routes reach the engines), and some that do not. */
export interface FuzzNames {
  container: string;
  image: string;
  network: string;
  volume: string;
}

/** mulberry32: small, fast, good enough to pick from lists reproducibly. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Pick = <T>(items: readonly T[]) => T;

// Routes that answer at once (no follow, no stream, no wait, no hijack: those have their own tests).
const ROUTES: ReadonlyArray<readonly [string, string]> = [
  ['GET', '/_ping'],
  ['GET', '/version'],
  ['GET', '/info'],
  ['GET', '/events?until={now}'],
  ['GET', '/system/df'],
  ['GET', '/containers/json'],
  ['POST', '/containers/create'],
  ['GET', '/containers/{c}/json'],
  ['GET', '/containers/{c}/top'],
  ['GET', '/containers/{c}/logs?stdout=1'],
  ['GET', '/containers/{c}/changes'],
  ['POST', '/containers/{c}/start'],
  ['POST', '/containers/{c}/stop?t=0'],
  ['POST', '/containers/{c}/kill'],
  ['POST', '/containers/{junk}/rename?name={junk}'],
  ['POST', '/containers/{c}/pause'],
  ['POST', '/containers/{c}/unpause'],
  ['POST', '/containers/{c}/exec'],
  ['POST', '/containers/{c}/update'],
  ['POST', '/containers/{c}/resize?h=10&w=10'],
  ['HEAD', '/containers/{c}/archive?path=/'],
  ['DELETE', '/containers/{junk}'],
  ['GET', '/images/json'],
  ['GET', '/images/{i}/json'],
  ['GET', '/images/{i}/history'],
  ['POST', '/images/{i}/tag?repo={junk}&tag=t'],
  ['POST', '/images/create?fromImage=127.0.0.1:1/none&tag=x'],
  ['DELETE', '/images/{junk}'],
  ['GET', '/images/search?term={junk}'],
  ['POST', '/build'],
  ['GET', '/networks'],
  ['POST', '/networks/create'],
  ['GET', '/networks/{n}'],
  ['POST', '/networks/{n}/connect'],
  ['POST', '/networks/{n}/disconnect'],
  ['DELETE', '/networks/{junk}'],
  ['GET', '/volumes'],
  ['POST', '/volumes/create'],
  ['GET', '/volumes/{v}'],
  ['DELETE', '/volumes/{junk}'],
  ['GET', '/plugins'],
  ['GET', '/plugins/{junk}/json'],
  ['POST', '/plugins/{junk}/enable'],
  ['GET', '/exec/{junk}/json'],
  ['POST', '/exec/{junk}/resize?h=1&w=1'],
  ['GET', '/distribution/{junk}/json'],
  ['POST', '/auth'],
  ['GET', '/swarm'],
  ['GET', '/services'],
  ['POST', '/_swarm/v1/explain'],
];

const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'HEAD', 'PATCH', 'OPTIONS', 'TRACE', 'PROPFIND'];
const VERSIONS = ['', '', '/v1.41', '/v1.24', '/v1.12', '/v9.99', '/v1.x', '/v'];
const JUNK_NAMES = ['nope', 'a%2Fb', 'a%3Fb', '%2e%2e', '..', 'x%00y', 'node1%2Fnope', '%E2%98%83', 'a'.repeat(300), '%', '%zz', '-', '*'];
const PATH_TRICKS = [
  (path: string) => path.replace(/^\//, '/containers/x/../../'),
  (path: string) => path.replace(/^\//, '/x/..%2F..%2F'),
  (path: string) => `/${path}`,
  (path: string) => path.replace(/\//g, '//'),
  (path: string) => `${path}/`,
  (path: string) => path.replace(/\/([^/]*)$/, '/./$1'),
  (path: string) => path.replace(/\/([^/]*)$/, '/%2e%2e/$1'),
  (path: string) => `${path}%zz`,
  (path: string) => `${path}%`,
  (path: string) => path.replace(/s\//, 's%2F'),
  (path: string) => path.toUpperCase(),
];
const QUERY_TRICKS = [
  'filters=%7Bbad',
  'filters={"label":["a"],"status":["nope"]}',
  'filters={"label":"notalist"}',
  'limit=abc',
  'limit=-5',
  'since=notatime',
  'until=notatime',
  'all=maybe',
  'size=%zz',
  't=abc',
  'signal=NOTASIGNAL',
  'name=' + 'x'.repeat(2000),
  'tail=abc',
  'h=abc&w=-1',
  'force=%00',
];
const VALUES: readonly unknown[] = [
  5,
  -1,
  1.5,
  1e308,
  'text',
  '',
  true,
  null,
  [],
  [1, 'a'],
  {},
  { a: { b: [] } },
  '\u0000',
  'x'.repeat(5000),
];
// No `Driver` fields: a volume or network driver that does not exist makes dockerd wait for a plugin.
const BODY_TEMPLATES: readonly Record<string, unknown>[] = [
  { Image: 'busybox:local', Cmd: ['true'], Env: ['A=1'], Labels: { a: 'b' }, HostConfig: { Memory: 0, NetworkMode: 'bridge', Binds: [] } },
  { Name: 'fuzzvol2', Labels: { a: 'b' }, DriverOpts: {} },
  { Name: 'fuzznet2', IPAM: { Config: [{ Subnet: '10.99.0.0/24' }] }, Labels: {} },
  { Container: 'fuzzc', EndpointConfig: { Aliases: ['x'] }, Force: false },
  { AttachStdout: true, Cmd: ['true'], Env: ['A=1'], Tty: false },
  { username: 'u', password: 'p', serveraddress: '127.0.0.1:1' },
  { Image: 'busybox:local' },
];
const BROKEN_BODIES = [
  '{',
  '{"Image":',
  '[]',
  '5',
  '"text"',
  'null',
  '{"a":1}{"b":2}',
  '\u0000\u0001',
  '{"Image":"busybox:local",}',
  '['.repeat(3000),
];
const CONTENT_TYPES = [
  'application/json',
  'application/json',
  'text/plain',
  'application/x-tar',
  'multipart/form-data',
  'application/jsonx',
];
const BAD_HEADERS: ReadonlyArray<Record<string, string>> = [
  {},
  {},
  { 'X-Registry-Auth': 'not-base64!!' },
  { 'X-Registry-Auth': Buffer.from('{"username":5}').toString('base64') },
  { 'X-Registry-Config': 'e30' },
  { Accept: 'application/x-nothing' },
  { 'Content-Encoding': 'gzip' },
];

/** Sets a random field (maybe nested) of a copy of `template` to a value of another kind. */
function mistype(template: Record<string, unknown>, random: () => number, pick: Pick): Record<string, unknown> {
  const copy = JSON.parse(JSON.stringify(template)) as Record<string, unknown>;
  let target: Record<string, unknown> = copy;
  for (;;) {
    const keys = Object.keys(target);
    if (keys.length === 0) break;
    const key = pick(keys);
    const value = target[key];
    if (value !== null && typeof value === 'object' && !Array.isArray(value) && random() < 0.5) {
      target = value as Record<string, unknown>;
      continue;
    }
    target[key] = pick(VALUES);
    break;
  }
  if (random() < 0.2) copy[pick(['HostConfig', 'NetworkingConfig', 'IPAM', 'EndpointConfig', 'Healthcheck'])] = pick(VALUES);
  return copy;
}

/** The `count` requests of seed `seed`. */
export function* malformedRequests(seed: number, count: number, names: FuzzNames): Generator<FuzzRequest> {
  const random = seededRandom(seed);
  const pick: Pick = (items) => items[Math.floor(random() * items.length)]!;
  for (let index = 0; index < count; index++) {
    const [routeMethod, routeTarget] = pick(ROUTES);
    const filled = routeTarget
      .replaceAll('{now}', String(Math.floor(Date.now() / 1000)))
      .replaceAll('{c}', random() < 0.8 ? names.container : pick(JUNK_NAMES))
      .replaceAll('{i}', random() < 0.8 ? names.image : pick(JUNK_NAMES))
      .replaceAll('{n}', random() < 0.8 ? names.network : pick(JUNK_NAMES))
      .replaceAll('{v}', random() < 0.8 ? names.volume : pick(JUNK_NAMES))
      .replaceAll('{junk}', pick(JUNK_NAMES));
    let [path = '/', query = ''] = filled.split('?');
    let method = routeMethod;
    const headers: Record<string, string> = { ...pick(BAD_HEADERS) };
    let body: string | undefined;
    const kind = random();
    if (kind < 0.2) path = pick(PATH_TRICKS)(path);
    else if (kind < 0.3) method = pick(METHODS);
    else if (kind < 0.45) query = [query, pick(QUERY_TRICKS)].filter(Boolean).join('&');
    else if (kind < 0.8) body = JSON.stringify(random() < 0.85 ? mistype(pick(BODY_TEMPLATES), random, pick) : pick(VALUES));
    else if (kind < 0.9) body = pick(BROKEN_BODIES);
    else body = JSON.stringify(pick(BODY_TEMPLATES));
    if (body !== undefined) headers['Content-Type'] = random() < 0.85 ? 'application/json' : pick(CONTENT_TYPES);
    yield { method, target: `${pick(VERSIONS)}${path}${query ? `?${query}` : ''}`, headers, body };
  }
}
