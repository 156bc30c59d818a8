import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from 'node:tls';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessConfig, startAccessCluster, type AccessCluster, type Person } from './access-support.js';
import { startRecordingProxy, type RecordedRequest, type RecordingProxy } from '../harness/recording-proxy.js';

/*
 * Issue 42, hole 1 (request smuggling through Upgrade) and "nothing reaches an engine unjudged".
 * Alice (team a) writes, in one TCP write, a request that asks to upgrade the connection but that
 * the engine will not upgrade (or the manager refuses), and behind it a second request against
 * bob's (team b) container. The second request must never reach an engine: bob's container stays
 * as it was and nothing of it comes back to alice.
 *
 * Then the invariant, over everything this file did (attacks by a viewer and an outsider, whom the
 * authorizers refuse, included): a recording proxy in front of each engine saw every request the
 * engines received, and per method and path (the object's ID in it) the engines received no more
 * than the audit log allowed on that object, the object an audit line names standing for the name
 * the client used. The rest is the manager's own reading of the engine, told apart as a GET without
 * a User-Agent (the manager's engine client sends none; the docker CLI and every request of this
 * file send one) on a connection that never carried a client's request (a smuggled request rides
 * on the connection of the one it hid behind), to a path of DRIVER_READS.
 *
 * Indexes 170-171 and ports 28100-28109 belong to this file (manager 28100, proxies 28101-28102);
 * 28110-28119 to test/unit/recording-proxy.test.ts, the proxy's own test.
 */

const PORT = 28100;
const FIRST_ENGINE = 170;
const PROXY_PORTS = [28101, 28102];
const NODE = `node${FIRST_ENGINE}`;

let cluster: AccessCluster;
let proxies: RecordingProxy[] = [];
const secret = `b-secret-${Math.random().toString(36).slice(2, 10)}`;
const bob = { id: '', startedAt: '' };
const alice = { stoppedExec: '', pausedExec: '', liveExec: '', stoppedId: '' };

async function ok(person: Person, args: string[]): Promise<string> {
  const result = await cluster.as(person, args);
  if (result.code !== 0) throw new Error(`docker ${args.join(' ')} as ${person} failed (${result.code}): ${result.stderr}`);
  return result.stdout.trim();
}

async function json<T>(person: Person, method: string, path: string, body?: unknown): Promise<T> {
  const answer = await cluster.call(person, method, path, body, { 'User-Agent': 'access-smuggling-test' });
  if (answer.status >= 300) throw new Error(`${method} ${path} as ${person}: ${answer.status} ${answer.text}`);
  return JSON.parse(answer.text) as T;
}

/** Writes `bytes` to the manager in one write on a TLS connection as `person`; everything answered until the manager closes (or `waitMs`). */
function rawExchange(person: Person, bytes: Buffer, waitMs = 8_000): Promise<string> {
  const file = (name: string) => readFileSync(join(cluster.dir, name));
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket = connect({
      host: '127.0.0.1',
      port: PORT,
      ca: file('ca.pem'),
      cert: file(`${person}-cert.pem`),
      key: file(`${person}-key.pem`),
    });
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(Buffer.concat(chunks).toString('latin1'));
    };
    const timer = setTimeout(done, waitMs);
    socket.on('secureConnect', () => socket.write(bytes));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', done);
    socket.on('error', done);
  });
}

function statusOf(answer: string): number {
  return Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? '0');
}

// --- the attacks ---------------------------------------------------------------------------------

interface Carrier {
  readonly name: string;
  /** The first request, with `behind` (the smuggled one) written right after it. */
  build(behind: string): string;
  /** The status alice gets for the first request. */
  readonly status: number;
}

const START_BODY = '{"Detach":false,"Tty":false}';

function upgradeRequest(method: string, path: string, headers: readonly string[], body: string): string {
  return [`${method} ${path} HTTP/1.1`, 'Host: swarm', 'User-Agent: smuggle-carrier', ...headers, '', body].join('\r\n');
}

const JSON_TYPE = 'Content-Type: application/json';
const START_LENGTH = `Content-Length: ${START_BODY.length}`;

/** An exec start asking to upgrade, with `headers` after `Connection: Upgrade`, then `body`, then the smuggled request. */
function execStart(exec: () => string, headers: readonly string[], body = START_BODY): Carrier['build'] {
  return (behind) => upgradeRequest('POST', `/v1.41/exec/${exec()}/start`, ['Connection: Upgrade', ...headers], body) + behind;
}

/** A container request asking to upgrade, with no body. */
function onContainer(method: string, path: string, headers: readonly string[]): Carrier['build'] {
  return (behind) => upgradeRequest(method, path, ['Connection: Upgrade', 'Upgrade: tcp', ...headers], '') + behind;
}

const stopped = () => alice.stoppedExec;
const paused = () => alice.pausedExec;

const CARRIERS: readonly Carrier[] = [
  // dockerd 20.10 forgets a stopped container's execs: its answer is 404, not a switch
  ...['tcp', 'h2c', 'websocket', 'TCP, foo/2'].map((protocol): Carrier => ({
    name: `exec start of a stopped container's exec, Upgrade: ${protocol}`,
    status: 404,
    build: execStart(stopped, [`Upgrade: ${protocol}`, JSON_TYPE, START_LENGTH]),
  })),
  ...['tcp', 'websocket'].map((protocol): Carrier => ({
    name: `exec start of a paused container's exec, Upgrade: ${protocol}`,
    status: 409,
    build: execStart(paused, [`Upgrade: ${protocol}`, JSON_TYPE, START_LENGTH]),
  })),
  {
    name: 'exec start without Content-Length, its body behind the head',
    status: 400,
    build: execStart(stopped, ['Upgrade: tcp', JSON_TYPE]),
  },
  {
    name: 'exec start with a body longer than declared',
    status: 400,
    build: execStart(stopped, ['Upgrade: tcp', JSON_TYPE, 'Content-Length: 10']),
  },
  {
    name: 'exec start with a body shorter than declared (the smuggled request inside it)',
    status: 404,
    build: execStart(stopped, ['Upgrade: tcp', JSON_TYPE, `Content-Length: ${START_BODY.length + 8}`]),
  },
  {
    name: 'exec start with a chunked body',
    status: 400,
    build: execStart(
      stopped,
      ['Upgrade: tcp', JSON_TYPE, 'Transfer-Encoding: chunked'],
      `${START_BODY.length.toString(16)}\r\n${START_BODY}\r\n0\r\n\r\n`,
    ),
  },
  {
    name: 'a detached exec start of a paused container',
    status: 409,
    build: execStart(paused, ['Upgrade: tcp', JSON_TYPE, 'Content-Length: 28'], '{"Detach":true, "Tty":false}'),
  },
  {
    name: 'exec start of an exec nobody has',
    status: 404,
    build: execStart(() => '0123456789abcdef', ['Upgrade: tcp', JSON_TYPE, START_LENGTH]),
  },
  {
    // dockerd switches, then holds the connection until the container starts: what follows is its stdin
    name: 'attach to a stopped container',
    status: 101,
    build: onContainer('POST', '/v1.41/containers/a-stopped/attach?stream=1&stdin=1&stdout=1&stderr=1', ['Content-Length: 0']),
  },
  {
    name: 'kill of a stopped container, asked with Upgrade',
    status: 400,
    build: onContainer('POST', '/v1.41/containers/a-stopped/kill', ['Content-Length: 0']),
  },
  {
    // the manager answers inspect itself
    name: 'inspect of her own container, asked with Upgrade',
    status: 200,
    build: onContainer('GET', '/v1.41/containers/a-stopped/json', []),
  },
];

/** Requests the authorizers refuse (a viewer may not exec or attach; an outsider may do nothing), with the same request behind them. */
const REFUSED: readonly Carrier[] = [
  {
    name: "exec start of alice's exec",
    status: 403,
    build: execStart(paused, ['Upgrade: tcp', JSON_TYPE, START_LENGTH]),
  },
  {
    name: "attach to alice's running container",
    status: 403,
    build: onContainer('POST', '/v1.41/containers/a-live/attach?stream=1&stdin=1&stdout=1', ['Content-Length: 0']),
  },
];

const SMUGGLED: ReadonlyArray<{ readonly name: string; build(tag: string): string }> = [
  { name: 'GET json', build: (tag) => `GET /v1.41/containers/b-run/json HTTP/1.1\r\nHost: swarm\r\nUser-Agent: smuggled/${tag}\r\n\r\n` },
  {
    name: 'POST pause',
    build: (tag) =>
      `POST /v1.41/containers/b-run/pause HTTP/1.1\r\nHost: swarm\r\nUser-Agent: smuggled/${tag}\r\nContent-Length: 0\r\n\r\n`,
  },
  {
    name: 'POST kill',
    build: (tag) =>
      `POST /v1.41/containers/b-run/kill?signal=KILL HTTP/1.1\r\nHost: swarm\r\nUser-Agent: smuggled/${tag}\r\nContent-Length: 0\r\n\r\n`,
  },
];

// --- the invariant -------------------------------------------------------------------------------

interface AuditLine {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly decision: { readonly allowed: boolean };
  readonly object?: { readonly kind: string; readonly id?: string };
}

/** What the manager reads of an engine on its own (the swarm driver's refresh, events and inspects; exec inspects for `docker exec`'s exit code). */
const DRIVER_READS = new Set([
  'GET /_ping',
  'GET /version',
  'GET /info',
  'GET /events',
  'GET /containers/json',
  'GET /containers/{id}/json',
  'GET /images/json',
  'GET /networks',
  'GET /volumes',
  'GET /exec/{id}/json',
]);

const KINDS = new Set(['containers', 'exec', 'images', 'networks', 'volumes', 'plugins']);
const COLLECTION_WORDS = new Set(['json', 'create', 'prune', 'load', 'search', 'get']);

/** `/v1.41/containers/3f2a/start?x=1` → ['containers', '3f2a', 'start'] (version and query gone). */
function segments(target: string): string[] {
  const path = (target.split('?')[0] ?? '').replace(/^\/v\d+\.\d+(?=\/)/, '');
  return path.split('/').filter((part) => part !== '');
}

/** The route family, objects left out: `POST /containers/{id}/start`. */
function family(method: string, target: string): string {
  const parts = segments(target);
  if (KINDS.has(parts[0] ?? '') && parts[1] !== undefined && !COLLECTION_WORDS.has(parts[1])) parts[1] = '{id}';
  return `${method} /${parts.join('/')}`;
}

/** The request with its object: an engine's path names containers by ID, an audit line's object gives the ID the client's name meant. */
function keyOfEngine(request: RecordedRequest): string {
  return `${request.method} /${segments(request.target).join('/')}`;
}
function keyOfAudit(line: AuditLine): string {
  const parts = segments(line.path);
  if (KINDS.has(parts[0] ?? '') && parts[1] !== undefined && !COLLECTION_WORDS.has(parts[1]) && line.object?.id) {
    parts[1] = line.object.id;
  }
  return `${line.method} /${parts.join('/')}`;
}

function count<T>(items: readonly T[], key: (item: T) => string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return counts;
}

// --- the suite -----------------------------------------------------------------------------------

beforeAll(async () => {
  cluster = await startAccessCluster({
    firstEngine: FIRST_ENGINE,
    engines: 2,
    port: PORT,
    config: (dir) => accessConfig(undefined, { audit: { path: join(dir, 'audit.log') } }),
    // the invariant's stop must end within the harness's 5 s, or the audit log's last lines are lost
    args: ['--shutdown-timeout', '2s'],
    discovery: async (testbed, dir) => {
      proxies = await Promise.all(
        testbed.engines.map((engine, i) =>
          startRecordingProxy({
            label: engine.name,
            listen: { host: '127.0.0.1', port: PROXY_PORTS[i]! },
            engine: { host: engine.host, port: engine.port },
            tlsDir: dir,
          }),
        ),
      );
      return proxies.map((proxy) => proxy.addr).join(',');
    },
  });
  const on = ['-e', `constraint:node==${NODE}`];
  bob.id = await ok('bob', [
    'run',
    '-d',
    '--name',
    'b-run',
    '--user',
    '1000',
    '--security-opt',
    'no-new-privileges',
    '-m',
    '64m',
    '--cpus',
    '0.5',
    ...on,
    '-e',
    `SECRET=${secret}`,
    'busybox:local',
    'sleep',
    '600',
  ]);
  bob.startedAt = (await json<{ State: { StartedAt: string } }>('bob', 'GET', '/containers/b-run/json')).State.StartedAt;
  await ok('alice', ['run', '-d', '--name', 'a-live', ...on, 'busybox:local', 'sleep', '600']);
  await ok('alice', ['run', '-d', '--name', 'a-gone', ...on, 'busybox:local', 'sleep', '600']);
  alice.stoppedExec = (await json<{ Id: string }>('alice', 'POST', '/containers/a-gone/exec', { Cmd: ['true'], AttachStdout: true })).Id;
  await ok('alice', ['stop', '-t', '1', 'a-gone']);
  await ok('alice', ['run', '-d', '--name', 'a-paused', ...on, 'busybox:local', 'sleep', '600']);
  alice.pausedExec = (await json<{ Id: string }>('alice', 'POST', '/containers/a-paused/exec', { Cmd: ['true'], AttachStdout: true })).Id;
  await ok('alice', ['pause', 'a-paused']);
  alice.stoppedId = await ok('alice', ['run', '-d', '--name', 'a-stopped', ...on, 'busybox:local', 'true']);
  await ok('alice', ['wait', 'a-stopped']);
}, 240_000);

afterAll(async () => {
  await cluster?.stop();
  await Promise.all(proxies.map((proxy) => proxy.stop()));
});

describe('a request behind an upgrade that does not happen never reaches an engine', () => {
  const attacks = [
    ...CARRIERS.map((carrier) => ({ person: 'alice' as Person, carrier })),
    ...(['viewer', 'outsider'] as const).flatMap((person) => REFUSED.map((carrier) => ({ person: person as Person, carrier }))),
  ].flatMap((attack) => SMUGGLED.map((smuggled) => ({ ...attack, smuggled })));

  it(`${attacks.length} attempts (alice's, a viewer's, an outsider's) each get only their first request's answer`, async () => {
    const rows: string[] = [];
    const results: Array<{ name: string; status: number; leaks: string[]; answers: number }> = [];
    const expected: typeof results = [];
    for (let i = 0; i < attacks.length; i += 6) {
      await Promise.all(
        attacks.slice(i, i + 6).map(async ({ person, carrier, smuggled }, j) => {
          const tag = `${i + j}`;
          const answer = await rawExchange(person, Buffer.from(carrier.build(smuggled.build(tag)), 'latin1'));
          const name = `${person}: ${carrier.name} + ${smuggled.name}`;
          // one answer, the first request's: its status, nothing of bob's container, no second status line
          const seen = {
            status: statusOf(answer),
            leaks: [secret, bob.id, 'b-run'].filter((text) => answer.includes(text)),
            answers: (answer.match(/HTTP\/1\.1 \d{3}/g) ?? []).length,
          };
          rows.push(`${name}: ${seen.status} ${JSON.stringify(answer.split('\r\n\r\n')[1]?.slice(0, 120) ?? '')}`);
          results.push({ name, ...seen });
          expected.push({ name, status: carrier.status, leaks: [], answers: 1 });
        }),
      );
    }
    console.log(rows.sort().join('\n'));
    const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);
    expect(results.sort(byName)).toEqual(expected.sort(byName));
  }, 240_000);

  it("leaves bob's container as it was: running, not paused, not restarted", async () => {
    const state = (await json<{ State: { Running: boolean; Paused: boolean; StartedAt: string } }>('bob', 'GET', '/containers/b-run/json'))
      .State;
    expect(state).toMatchObject({ Running: true, Paused: false, StartedAt: bob.startedAt });
  });

  it('no engine ever received a smuggled request', () => {
    const smuggled = proxies.flatMap((proxy) => proxy.requests).filter((request) => request.headers['user-agent']?.startsWith('smuggled/'));
    expect(smuggled.map((request) => `${request.engine} ${request.method} ${request.target}`)).toEqual([]);
  });
});

describe('an upgrade the engine grants still works', () => {
  it('bytes alice writes right behind an exec start reach the exec as its input, after the switch', async () => {
    const created = await json<{ Id: string }>('alice', 'POST', '/containers/a-live/exec', {
      Cmd: ['head', '-n', '1'],
      AttachStdin: true,
      AttachStdout: true,
    });
    alice.liveExec = created.Id;
    const request = upgradeRequest(
      'POST',
      `/v1.41/exec/${created.Id}/start`,
      ['Connection: Upgrade', 'Upgrade: tcp', 'Content-Type: application/json', `Content-Length: ${START_BODY.length}`],
      START_BODY,
    );
    const answer = await rawExchange('alice', Buffer.from(`${request}typed-early-${secret.length}\n`, 'latin1'));
    expect(statusOf(answer)).toBe(101);
    expect(answer).toContain(`typed-early-${secret.length}`);
  });

  it('a websocket attach (attach/ws) switches and streams the output', async () => {
    await ok('alice', [
      'run',
      '-d',
      '--name',
      'a-ticker',
      '-e',
      `constraint:node==${NODE}`,
      'busybox:local',
      'sh',
      '-c',
      'while true; do echo tick; sleep 0.2; done',
    ]);
    const file = (name: string) => readFileSync(join(cluster.dir, name));
    const socket = new WebSocket(`wss://127.0.0.1:${PORT}/v1.41/containers/a-ticker/attach/ws?stream=1&stdout=1`, {
      ca: file('ca.pem'),
      cert: file('alice-cert.pem'),
      key: file('alice-key.pem'),
      headers: { 'User-Agent': 'access-smuggling-test' },
    });
    const output = await new Promise<string>((resolve, reject) => {
      let text = '';
      const timer = setTimeout(() => reject(new Error(`no output over the websocket (got ${JSON.stringify(text)})`)), 15_000);
      socket.on('message', (data: Buffer) => {
        text += data.toString();
        if (!text.includes('tick')) return;
        clearTimeout(timer);
        socket.terminate();
        resolve(text);
      });
      socket.on('error', reject);
    });
    expect(output).toContain('tick');
  });

  it('docker exec and docker run -i go through as before', async () => {
    expect(await ok('alice', ['exec', 'a-live', 'echo', 'exec-through'])).toBe('exec-through');
    const run = await cluster.as('alice', ['run', '--rm', '-i', '-e', `constraint:node==${NODE}`, 'busybox:local', 'cat'], {
      input: 'piped-through\n',
    });
    expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 0, stdout: 'piped-through\n' });
  });
});

describe('every request the engines received is explained by an allowed, audited request', () => {
  it('engine requests per route family against the audit log (the manager stops first)', async () => {
    const auditFile = join(cluster.dir, 'audit.log');
    const read = () =>
      readFileSync(auditFile, 'utf8')
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as AuditLine);
    // A stream's line is written when it ends, and the attaches to a stopped container last until
    // the engine lets them go: a stopping manager ends them all and writes what is queued.
    await cluster.manager.stop();
    const audit = read();
    const allowed = audit.filter((line) => line.decision.allowed);
    const received = proxies.flatMap((proxy) => proxy.requests);
    // A smuggled request rides on the connection of the request it hid behind: whatever came on a
    // connection that carried a client's request is judged, whatever its headers.
    const clientConnections = new Set(
      received.filter((request) => request.headers['user-agent'] !== undefined).map((request) => `${request.engine}#${request.connection}`),
    );
    const own = received.filter(
      (request) =>
        request.method === 'GET' &&
        request.headers['user-agent'] === undefined &&
        !clientConnections.has(`${request.engine}#${request.connection}`),
    );
    const judged = received.filter((request) => !own.includes(request));

    const explained = count(allowed, keyOfAudit);
    const unexplained: string[] = [];
    for (const [key, times] of count(judged, keyOfEngine)) {
      const by = explained.get(key) ?? 0;
      if (times > by) unexplained.push(`${key}: the engines received ${times}, the audit log allowed ${by}`);
    }

    const table = new Map<string, { engine: number; own: number; allowed: number; denied: number }>();
    const row = (name: string) => table.get(name) ?? table.set(name, { engine: 0, own: 0, allowed: 0, denied: 0 }).get(name)!;
    for (const request of judged) row(family(request.method, request.target)).engine += 1;
    for (const request of own) row(family(request.method, request.target)).own += 1;
    for (const line of audit) row(family(line.method, line.path))[line.decision.allowed ? 'allowed' : 'denied'] += 1;
    const lines = [...table]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, c]) => `${name}\t${c.engine}\t${c.own}\t${c.allowed}\t${c.denied}`);
    console.log(
      [
        `engine requests ${received.length} (judged ${judged.length}, the manager's own ${own.length}); audited ${audit.length} (allowed ${allowed.length})`,
        'family\tengine (judged)\tengine (manager own)\taudited allowed\taudited denied',
        ...lines,
      ].join('\n'),
    );
    // an upgrade the engine refused is on file with the engine's status, not as a switch
    const pausedStarts = allowed.filter((line) => line.path.endsWith(`/exec/${alice.pausedExec}/start`));
    expect(pausedStarts.length).toBeGreaterThan(0);
    expect([...new Set(pausedStarts.map((line) => line.status))]).toEqual([409]);
    // refused requests explain nothing: an engine request on a refused one's object would need an allowed line of its own
    expect(audit.filter((line) => !line.decision.allowed).length).toBeGreaterThan(0);
    expect(judged.length).toBeGreaterThan(0);
    expect([...new Set(own.map((request) => family(request.method, request.target)))].filter((name) => !DRIVER_READS.has(name))).toEqual(
      [],
    );
    expect(unexplained).toEqual([]);
  });
});
