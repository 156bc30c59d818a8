import { writeFileSync } from 'node:fs';
import { Agent } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../e2e/api-support.js';
import { startTestbed, type Testbed } from '../harness/engines.js';
import { startManager, type InfoAnswer, type Manager } from '../harness/manager.js';
import {
  CRASH_WORDS,
  FuzzTally,
  pingFigures,
  runWorkers,
  send,
  startPinger,
  statusTable,
  writeFuzzResults,
  type Answer,
} from './fuzz-support.js';
import { malformedRequests, seededRandom, type FuzzRequest } from './malformed-requests.js';

// The seeded fuzz of fuzz.test.ts with identities (issue #33): bob's objects are the targets, and
// every request comes from someone who may not touch them (alice of another team, nobody, a wrong
// token, forged forwarded-caller headers and ownership labels). Engines 223-224 behind `swarm
// manage` on port 27495; indexes 223-224 and ports 27495-27499 belong to this file. `npm test`
// sends 3,000 requests; SWARM_FUZZ_REQUESTS, SWARM_FUZZ_SEED and SWARM_FUZZ_RESULTS as in fuzz.test.ts.
const MANAGER_PORT = 27495;
const FIRST_ENGINE = 223;
const ENGINES = ['127.0.0.224', '127.0.0.225'];
/** Where bob's container and network are (his volume is on every node, as a volume created without `node/` is). */
const NODE = `node${FIRST_ENGINE}`;
const COUNT = Number(process.env.SWARM_FUZZ_REQUESTS ?? 3_000);
const SEED = Number(process.env.SWARM_FUZZ_SEED ?? 1);
const CONCURRENCY = 8;

const TOKENS = { alice: 'fuzz-alice-5c1e09d2', bob: 'fuzz-bob-a77d42e8', admin: 'fuzz-admin-0e3b9f61' } as const;
type Person = keyof typeof TOKENS;
const OWNER = 'com.docker.swarm.owner';
const TEAM = 'com.docker.swarm.team';
const INVALID_TOKEN = 'authentication failed: invalid bearer token';

const BOB = { container: 'bob-web', network: 'bob-net', volume: 'bob-vol' } as const;
/** What the generator is given for bob's objects; each request then spells them its own way. */
const PLACEHOLDER = { container: 'BOBCTR', network: 'BOBNET', volume: 'BOBVOL' } as const;

interface BobIds {
  container: string;
  network: string;
  exec: string;
}

let dir: { path: string; remove(): void };
let testbed: Testbed;
let manager: Manager;
let ids: BobIds;

function headersOf(person: Person | undefined): Record<string, string> {
  return person ? { Authorization: `Bearer ${TOKENS[person]}` } : {};
}

/** A well-formed call as one of the people in the token file. */
async function call(person: Person, method: string, target: string, body?: unknown): Promise<Answer> {
  const headers = headersOf(person);
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  return send('127.0.0.1', MANAGER_PORT, undefined, {
    method,
    target,
    headers,
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
}

async function callOk<T>(person: Person, method: string, target: string, body?: unknown): Promise<T> {
  const answer = await call(person, method, target, body);
  if (answer.status >= 300) throw new Error(`${person}: ${method} ${target} answered ${answer.status}: ${answer.body}`);
  return (answer.body ? JSON.parse(answer.body) : undefined) as T;
}

beforeAll(async () => {
  dir = await tempDir('swarm-fuzz-access-');
  writeFileSync(
    join(dir.path, 'tokens.csv'),
    `${TOKENS.alice},alice,1001,"team-a"\n${TOKENS.bob},bob,1002,"team-b"\n${TOKENS.admin},admin,1000,"admins"\n`,
  );
  const config = join(dir.path, 'swarm.config.json');
  writeFileSync(
    config,
    JSON.stringify({
      access: {
        authn: [['token-file', { path: 'tokens.csv' }]],
        authz: [
          [
            'rules',
            {
              bindings: [
                { group: 'team-a', role: 'edit' },
                { group: 'team-b', role: 'edit' },
                { group: 'admins', role: 'admin' },
              ],
            },
          ],
        ],
        admission: [['policy', { default: 'baseline' }]],
      },
    }),
  );
  testbed = await startTestbed({ first: FIRST_ENGINE, count: 2 });
  manager = await startManager({
    discovery: testbed.addrs,
    port: MANAGER_PORT,
    expectNodes: 2,
    args: ['--config', config],
    // Anonymous callers may do nothing here: the harness reads /info as the admin.
    readInfo: async () => {
      const answer = await call('admin', 'GET', '/info').catch(() => undefined);
      return answer && (parseJson(answer.body) as InfoAnswer | undefined);
    },
  });
  // Bob's objects: a volume (on every node), a network and a running container on NODE, the
  // container on the bridge and his network, and an exec instance in it (created, not started).
  await callOk('bob', 'POST', '/v1.41/volumes/create', { Name: BOB.volume });
  const network = await callOk<{ Id: string }>('bob', 'POST', '/v1.41/networks/create', { Name: `${NODE}/${BOB.network}` });
  const container = await callOk<{ Id: string }>('bob', 'POST', `/v1.41/containers/create?name=${BOB.container}`, {
    Image: 'busybox:local',
    Cmd: ['sleep', '3600'],
    Env: [`constraint:node==${NODE}`],
  });
  await callOk('bob', 'POST', `/v1.41/containers/${BOB.container}/start`);
  await callOk('bob', 'POST', `/v1.41/networks/${BOB.network}/connect`, { Container: BOB.container });
  const exec = await callOk<{ Id: string }>('bob', 'POST', `/v1.41/containers/${BOB.container}/exec`, { Cmd: ['sleep', '1'] });
  ids = { container: container.Id, network: network.Id, exec: exec.Id };
}, 180_000);

afterAll(async () => {
  await manager?.stop();
  await testbed?.stop();
  dir?.remove();
});

/** One fuzz request as sent: who sends it, and what of bob's it names. */
interface Attempt {
  fuzz: FuzzRequest;
  identity: string;
  wrongToken: boolean;
  /** Bob's objects the request names (path or body), by kind. */
  names: string[];
  /** The ID prefixes among those names (another object may hold the same prefix). */
  prefixes: string[];
  /** The body sets the owner or team label to bob's or the admin's. */
  forgedLabels: boolean;
}

function pickWith(random: () => number): <T>(items: readonly T[]) => T {
  return (items) => items[Math.floor(random() * items.length)]!;
}

function forwardedCaller(user: string, groups: string[]): string {
  return Buffer.from(JSON.stringify({ user, uid: '1', groups, method: 'token' })).toString('base64url');
}

/** Who sends a request: never bob, never the admin. */
function pickIdentity(random: () => number): { identity: string; wrongToken: boolean; headers: Record<string, string> } {
  const pick = pickWith(random);
  const roll = random();
  if (roll < 0.3) return { identity: 'alice', wrongToken: false, headers: headersOf('alice') };
  if (roll < 0.5) {
    // No credential, or one that is not a bearer token (the admin's token under another scheme included).
    const header = pick([undefined, undefined, 'Bearer', 'Basic YWRtaW46YWRtaW4=', `Token ${TOKENS.admin}`, `Basic ${TOKENS.bob}`]);
    return { identity: 'anonymous', wrongToken: false, headers: header === undefined ? {} : { Authorization: header } };
  }
  if (roll < 0.7) {
    const token = pick([
      'not-a-token',
      `${TOKENS.bob}x`,
      TOKENS.bob.slice(0, -1),
      TOKENS.admin.toUpperCase(),
      `${TOKENS.alice.slice(0, 8)}`,
      'a'.repeat(4096),
    ]);
    return { identity: 'wrong-token', wrongToken: true, headers: { Authorization: `${pick(['Bearer', 'bearer', 'BEARER'])} ${token}` } };
  }
  // A replica's header, from a client: dropped, so the caller is whoever the token says (or nobody).
  const claim = pick([
    forwardedCaller('admin', ['admins']),
    forwardedCaller('bob', ['team-b']),
    forwardedCaller('alice', ['admins', 'team-a']),
  ]);
  const asAlice = random() < 0.5;
  return {
    identity: asAlice ? 'forged-header+alice' : 'forged-header',
    wrongToken: false,
    headers: { ...(asAlice ? headersOf('alice') : {}), [pick(['X-Swarm-Forwarded-Caller', 'x-swarm-forwarded-caller'])]: claim },
  };
}

const OBJECT_SEGMENT = /^((?:\/v[^/]*)?\/(containers|networks|volumes|exec)\/)([^/?]*)/;
const NOT_OBJECTS = new Set(['create', 'json', 'prune', PLACEHOLDER.container, PLACEHOLDER.network, PLACEHOLDER.volume]);

/**
 * Turns a generated request into one about bob's objects as someone else: placeholders become bob's
 * names, `node/name`s, full IDs or ID prefixes (or a shared network, whose answer must not show his
 * container either); some junk object names become bob's too (so removals and renames aim at his
 * objects); create bodies name his objects or set the ownership labels; then an identity.
 */
function asSomeoneElse(fuzz: FuzzRequest, random: () => number): Attempt {
  const pick = pickWith(random);
  const names = new Set<string>();
  const prefixes: string[] = [];
  const prefix = (id: string): string => {
    const short = id.slice(0, 3 + Math.floor(random() * 10));
    prefixes.push(short);
    return short;
  };
  const spell = (kind: 'container' | 'network' | 'volume' | 'exec'): string => {
    // A shared network: everyone may look at it, but not at bob's container on it.
    if (kind === 'network' && random() < 0.25)
      return pick(['bridge', `${NODE}/bridge`, `${NODE}/bridge`, `node${FIRST_ENGINE + 1}/bridge`, 'host']);
    names.add(kind);
    const spellings: Array<() => string> =
      kind === 'volume'
        ? [() => BOB.volume, () => `${NODE}/${BOB.volume}`, () => `node${FIRST_ENGINE + 1}/${BOB.volume}`]
        : kind === 'exec'
          ? [() => ids.exec, () => ids.exec, () => prefix(ids.exec)]
          : [() => BOB[kind], () => `${NODE}/${BOB[kind]}`, () => ids[kind], () => prefix(ids[kind])];
    return pick(spellings)();
  };
  let { method, target, body } = fuzz;
  const headers = { ...fuzz.headers };
  const segment = OBJECT_SEGMENT.exec(target);
  if (segment && !NOT_OBJECTS.has(segment[3]!)) {
    const kind =
      segment[2] === 'containers' ? 'container' : segment[2] === 'networks' ? 'network' : segment[2] === 'volumes' ? 'volume' : 'exec';
    if (random() < (kind === 'exec' ? 0.8 : 0.5)) {
      target = `${segment[1]}${spell(kind)}${target.slice(segment[0].length)}`;
      // Starting bob's exec (detached, so an answer comes at once) is the exec route that runs something.
      if (kind === 'exec' && target.includes('/resize') && random() < 0.4) {
        method = 'POST';
        target = target.replace(/\/resize.*$/, '/start');
        body = JSON.stringify({ Detach: true, Tty: false });
        headers['Content-Type'] = 'application/json';
      }
    }
  }
  target = target
    .replaceAll(PLACEHOLDER.container, () => spell('container'))
    .replaceAll(PLACEHOLDER.network, () => spell('network'))
    .replaceAll(PLACEHOLDER.volume, () => spell('volume'));
  let forgedLabels = false;
  let parsed: unknown;
  try {
    parsed = body === undefined ? undefined : JSON.parse(body);
  } catch {
    parsed = undefined;
  }
  if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) {
    const object = parsed as Record<string, unknown>;
    // Only where the route reads the body: elsewhere a body naming bob's objects names nothing.
    const posted = method === 'POST' ? target : '';
    if (object['Container'] === 'fuzzc' && /\/networks\/.+\/(connect|disconnect)$/.test(posted)) object['Container'] = spell('container');
    const creates = /\/(containers|networks|volumes)\/create(\?|$)/.exec(posted)?.[1];
    if (creates === 'containers' && random() < 0.35) {
      const host = (object['HostConfig'] !== null && typeof object['HostConfig'] === 'object' ? object['HostConfig'] : {}) as Record<
        string,
        unknown
      >;
      object['HostConfig'] = host;
      const reference = pick(['network-mode', 'pid-mode', 'volumes-from', 'links', 'binds', 'network', 'endpoint', 'affinity']);
      if (reference === 'network-mode') host['NetworkMode'] = `container:${spell('container')}`;
      else if (reference === 'pid-mode') host['PidMode'] = `container:${spell('container')}`;
      else if (reference === 'volumes-from') host['VolumesFrom'] = [spell('container')];
      else if (reference === 'links') host['Links'] = [`${spell('container')}:peer`];
      else if (reference === 'binds') {
        names.add('volume');
        host['Binds'] = [`${BOB.volume}:/data`];
      } else if (reference === 'network') host['NetworkMode'] = spell('network');
      else if (reference === 'endpoint') object['NetworkingConfig'] = { EndpointsConfig: { [spell('network')]: {} } };
      else object['Env'] = [`affinity:container==${spell('container')}`];
    }
    if (creates === 'volumes' && random() < 0.5) {
      // dockerd answers a create of a name it holds with that volume.
      names.add('volume');
      object['Name'] = pick([BOB.volume, `${NODE}/${BOB.volume}`]);
    }
    if ((creates !== undefined || /\/containers\/.+\/update$/.test(posted)) && random() < 0.3) {
      forgedLabels = true;
      const owner = pick(['bob', 'admin']);
      const team = pick(['team-b', 'admins']);
      const both = random() < 0.5;
      object['Labels'] =
        random() < 0.8
          ? { a: 'b', [OWNER]: owner, ...(both ? { [TEAM]: team } : {}) }
          : [`${OWNER}=${owner}`, ...(both ? [`${TEAM}=${team}`] : [])];
    }
    body = JSON.stringify(object);
  }
  const who = pickIdentity(random);
  return {
    fuzz: { method, target, headers: { ...headers, ...who.headers }, ...(body !== undefined ? { body } : {}) },
    identity: who.identity,
    wrongToken: who.wrongToken,
    names: [...names],
    prefixes,
    forgedLabels,
  };
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function describeAttempt(attempt: Attempt): string {
  const { fuzz } = attempt;
  const headers = Object.entries(fuzz.headers)
    .map(([name, value]) => `${name}: ${value.length > 80 ? `${value.slice(0, 80)}…` : value}`)
    .join('; ');
  return `[${attempt.identity}] ${fuzz.method} ${fuzz.target.slice(0, 300)} {${headers}} ${fuzz.body?.slice(0, 300) ?? ''}`;
}

/** Whether a container or network that is not bob's has an ID starting with one of `prefixes`. */
async function othersHold(prefixes: readonly string[]): Promise<boolean> {
  const containers = await callOk<Array<{ Id: string }>>('admin', 'GET', '/v1.41/containers/json?all=1');
  const networks = await callOk<Array<{ Id: string }>>('admin', 'GET', '/v1.41/networks');
  return [...containers, ...networks].some(
    (row) => row.Id !== ids.container && row.Id !== ids.network && prefixes.some((start) => row.Id.startsWith(start)),
  );
}

describe('malformed requests with identities (seeded fuzz, issue #33)', () => {
  it(
    `answers ${COUNT} malformed requests about bob's objects from others with no leak, no manager-made 5xx and no crash`,
    async () => {
      const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
      const tally = new FuzzTally();
      const { problems } = tally;
      const leaks: string[] = [];
      const byIdentity = new Map<string, Map<number, number>>();
      let beforeAuthentication = 0;
      let ownPrefix = 0;
      const naming = new Map<number, number>();
      const pinger = startPinger(MANAGER_PORT, problems);
      const secrets: Array<[string, string]> = [
        ['container ID', ids.container],
        ['network ID', ids.network],
        ['exec ID', ids.exec],
      ];
      const bobNames: Array<[string, string]> = [...secrets, ...Object.entries(BOB).map(([kind, name]): [string, string] => [kind, name])];

      const started = performance.now();
      const generated = malformedRequests(SEED, COUNT, {
        container: PLACEHOLDER.container,
        image: 'busybox:local',
        network: PLACEHOLDER.network,
        volume: PLACEHOLDER.volume,
      });
      const random = seededRandom(SEED * 7919 + 33);
      const attempts: Iterator<Attempt> = {
        next: () => {
          const next = generated.next();
          return next.done ? { done: true, value: undefined } : { done: false, value: asSomeoneElse(next.value, random) };
        },
      };
      const check = async (attempt: Attempt) => {
        const { fuzz } = attempt;
        const label = describeAttempt(attempt);
        const answer = await tally.send(MANAGER_PORT, agent, fuzz, label);
        if (!answer) return;
        const said = `${answer.status} ${answer.body.slice(0, 300)}${answer.location ? ` (Location: ${answer.location})` : ''}`;
        const mine = byIdentity.get(attempt.identity) ?? new Map<number, number>();
        byIdentity.set(attempt.identity, mine.set(answer.status, (mine.get(answer.status) ?? 0) + 1));

        // Leaks: what others may learn of bob's objects, or do to them.
        const asked = decoded(`${fuzz.target} ${fuzz.body ?? ''}`).toLowerCase();
        const told = `${answer.body} ${answer.location}`.toLowerCase();
        const ok = answer.status >= 200 && answer.status < 300;
        if (attempt.names.length > 0) naming.set(answer.status, (naming.get(answer.status) ?? 0) + 1);
        if (ok && attempt.names.length > 0) {
          // An ID prefix also names the caller's own objects that start with it: that is no leak.
          if (attempt.prefixes.length > 0 && (await othersHold(attempt.prefixes))) ownPrefix++;
          else leaks.push(`${label}: ${said} (names bob's ${attempt.names.join(', ')})`);
        }
        if (ok && attempt.forgedLabels) leaks.push(`${label}: ${said} (set the ownership labels)`);
        const held = (ok ? bobNames : secrets).filter(
          ([, secret]) => told.includes(secret.toLowerCase()) && !asked.includes(secret.toLowerCase()),
        );
        if (held.length > 0) {
          const at = told.indexOf(held[0]![1].toLowerCase());
          const excerpt = `${answer.body} ${answer.location}`.slice(Math.max(0, at - 200), at + 200);
          leaks.push(`${label}: ${answer.status} …${excerpt}… (the answer holds bob's ${held.map(([what]) => what).join(', ')})`);
        }
        if (attempt.wrongToken) {
          // The HTTP front answers a path it would clean (301) or cannot read (400) before anyone
          // is asked who calls, as dockerd's router does: such an answer must not depend on the caller.
          if (answer.status === 301 || answer.status === 400) {
            const { Authorization: _dropped, ...anonymous } = fuzz.headers;
            const again = await send('127.0.0.1', MANAGER_PORT, agent, { ...fuzz, headers: anonymous }).catch(() => undefined);
            if (again?.status === answer.status && again.body === answer.body && again.location === answer.location) beforeAuthentication++;
            else leaks.push(`${label}: ${said}, but without the token ${again?.status} ${again?.body.slice(0, 200)}`);
          } else if (
            answer.status !== 401 ||
            (fuzz.method !== 'HEAD' && (parseJson(answer.body) as { message?: string } | undefined)?.message !== INVALID_TOKEN)
          ) {
            leaks.push(`${label}: a wrong token was answered ${said}`);
          }
        }

        await tally.replay5xx(ENGINES, fuzz, label, answer);
      };
      // Requests on bob's container would change its state were they let through, and an engine
      // refuses a df while another runs: those run with their replay one at a time.
      await runWorkers(
        attempts,
        CONCURRENCY,
        (attempt) => attempt.names.includes('container') || /system(\/|%2F)df/i.test(attempt.fuzz.target),
        (attempt) =>
          check(attempt).catch((error: Error) => {
            problems.push(`${describeAttempt(attempt)}: the check failed: ${error.message}`);
          }),
      );
      const seconds = (performance.now() - started) / 1000;
      const pings = await pinger.stop();
      agent.destroy();

      const crashes: string[] = [];
      if (!manager.running()) crashes.push(`the manager exited; its last words:\n${manager.output().slice(-3000)}`);
      const crashLine = manager
        .output()
        .split('\n')
        .find((line) => CRASH_WORDS.test(line));
      if (crashLine) crashes.push(crashLine.slice(0, 2000));

      // Afterwards, as the admin: bob's objects are as he left them, and nobody made objects in his name or the admin's.
      const afterwards: string[] = [];
      if (manager.running()) {
        const container = await callOk<{ State: { Running: boolean }; Config: { Labels: Record<string, string> } }>(
          'admin',
          'GET',
          `/v1.41/containers/${ids.container}/json`,
        );
        if (!container.State.Running) afterwards.push(`bob's container is not running: ${JSON.stringify(container.State)}`);
        if (container.Config.Labels[OWNER] !== 'bob' || container.Config.Labels[TEAM] !== 'team-b')
          afterwards.push(`bob's container's labels: ${JSON.stringify(container.Config.Labels)}`);
        const network = await call('admin', 'GET', `/v1.41/networks/${ids.network}`);
        if (
          network.status !== 200 ||
          (parseJson(network.body) as { Labels?: Record<string, string> } | undefined)?.Labels?.[OWNER] !== 'bob'
        )
          afterwards.push(`bob's network: ${network.status} ${network.body.slice(0, 300)}`);
        for (const node of [FIRST_ENGINE, FIRST_ENGINE + 1]) {
          const volume = await call('admin', 'GET', `/v1.41/volumes/node${node}/${BOB.volume}`);
          if (
            volume.status !== 200 ||
            (parseJson(volume.body) as { Labels?: Record<string, string> } | undefined)?.Labels?.[OWNER] !== 'bob'
          )
            afterwards.push(`bob's volume on node${node}: ${volume.status} ${volume.body.slice(0, 300)}`);
        }
        const exec = await call('admin', 'GET', `/v1.41/exec/${ids.exec}/json`);
        const execState = parseJson(exec.body) as { Running?: boolean; Pid?: number } | undefined;
        if (exec.status !== 200 || execState?.Running !== false || execState.Pid !== 0)
          afterwards.push(`bob's exec (created, never started): ${exec.status} ${exec.body.slice(0, 300)}`);
        const claimed = (labels: Record<string, string> | null | undefined) =>
          ['bob', 'admin'].includes(labels?.[OWNER] ?? '') || ['team-b', 'admins'].includes(labels?.[TEAM] ?? '');
        const containers = await callOk<Array<{ Id: string; Names: string[]; Labels: Record<string, string> }>>(
          'admin',
          'GET',
          '/v1.41/containers/json?all=1',
        );
        for (const other of containers.filter((row) => claimed(row.Labels) && row.Id !== ids.container))
          afterwards.push(`a container in bob's or the admin's name: ${other.Names.join(',')} ${JSON.stringify(other.Labels)}`);
        const networks = await callOk<Array<{ Id: string; Name: string; Labels: Record<string, string> }>>(
          'admin',
          'GET',
          '/v1.41/networks',
        );
        for (const other of networks.filter((row) => claimed(row.Labels) && row.Id !== ids.network))
          afterwards.push(`a network in bob's or the admin's name: ${other.Name} ${JSON.stringify(other.Labels)}`);
        const volumes = await callOk<{ Volumes: Array<{ Name: string; Labels: Record<string, string> | null }> }>(
          'admin',
          'GET',
          '/v1.41/volumes',
        );
        for (const other of volumes.Volumes.filter((row) => claimed(row.Labels) && !row.Name.endsWith(`/${BOB.volume}`)))
          afterwards.push(`a volume in bob's or the admin's name: ${other.Name} ${JSON.stringify(other.Labels)}`);
      }

      const summary = {
        ...tally.figures(SEED, COUNT, seconds),
        byIdentity: Object.fromEntries([...byIdentity].sort().map(([identity, counts]) => [identity, statusTable(counts)])),
        namingBobsObjects: statusTable(naming),
        wrongTokenAnsweredBeforeAuthentication: beforeAuthentication,
        prefixesOfOthersObjects: ownPrefix,
        leaks: leaks.length,
        crashes: crashes.length,
        problems: problems.length,
        afterwards: afterwards.length,
        ping: pingFigures(pings),
      };
      console.log(`fuzz-access: ${JSON.stringify(summary)}`);
      for (const line of [...crashes, ...leaks, ...afterwards].slice(0, 20)) console.log(`fuzz-access: ${line}`);
      writeFuzzResults(`fuzz-access-seed${SEED}`, summary, [...crashes, ...leaks, ...afterwards, ...problems]);
      expect(crashes).toEqual([]);
      expect(leaks.slice(0, 20)).toEqual([]);
      expect(afterwards).toEqual([]);
      expect(problems.slice(0, 20)).toEqual([]);
    },
    Math.max(120_000, COUNT * 6),
  );
});
