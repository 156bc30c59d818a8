import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { docker, type CliResult } from './api-support.js';
import { RawJson, httpsCall, startAccessCluster, type AccessCluster, type Person, certArgs as certFlags } from './access-support.js';
import { itJudgedEveryEngineRequest } from './access-invariant.js';

/*
 * Issue #33's bypass suite: alice (team a) tries every way there is to reach bob's (team b)
 * objects. Each attempt is compared with the same attempt on a name nobody has: the answers must
 * be the same (status, text modulo the name), nothing of bob's may show, and afterwards (as the
 * admin) nothing may have been created or changed. The tally (`tried N, refused N, leaked N`) is
 * printed at the end, and written to test/bench/results/access-bypass.md when SWARM_ACCESS_RESULTS
 * is set.
 *
 * Engines 216-217; manager on 27420.
 */

const PORT = 27420;
const RESULTS = fileURLToPath(new URL('../bench/results/access-bypass.md', import.meta.url));

let cluster: AccessCluster;
let scratch = '';

const BOB_RUN = ['--user', '1000', '--security-opt', 'no-new-privileges', '-m', '64m', '--cpus', '0.5'];
const SLEEP = ['busybox:local', 'sleep', '600'];
const NOBODY = 'nobody-x';

/** What setup learnt about bob's and alice's objects. */
const bob = { id: '', node: '', execId: '', volumeNode: '', composeIds: [] as string[], webId: '', webNode: '' };
const alice = { id: '', prefix: '' };
let eventsSince = 0;
let eventsUntil = 0;

interface Row {
  readonly area: string;
  readonly name: string;
  readonly refused: boolean;
  readonly leaks: readonly string[];
  readonly answer?: string;
}
const tally: Row[] = [];

function certArgs(person: Person): string[] {
  return certFlags(cluster.dir, person);
}

/** The docker CLI as alice (or someone else), with `DOCKER_CONFIG` when headers are to be sent. */
function as(person: Person, args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return docker(cluster.manager.host, [...certArgs(person), ...args], { env });
}

async function ok(person: Person, args: string[]): Promise<string> {
  const result = await as(person, args);
  if (result.code !== 0) throw new Error(`docker ${args.join(' ')} as ${person} failed (${result.code}): ${result.stderr}`);
  return result.stdout.trim();
}

/**
 * docker-compose 1.29 as a person. Its `--tlscacert` flag is not used to verify the manager (the
 * system store is), so the certificates go the way docker-py reads them: DOCKER_CERT_PATH.
 */
function compose(person: Person, project: string, file: string, args: string[]): Promise<CliResult> {
  const certs = join(scratch, `certs-${person}`);
  mkdirSync(certs, { recursive: true });
  copyFileSync(join(cluster.dir, 'ca.pem'), join(certs, 'ca.pem'));
  copyFileSync(join(cluster.dir, `${person}-cert.pem`), join(certs, 'cert.pem'));
  copyFileSync(join(cluster.dir, `${person}-key.pem`), join(certs, 'key.pem'));
  const env: Record<string, string | undefined> = {
    ...process.env,
    COMPOSE_HTTP_TIMEOUT: '60',
    DOCKER_HOST: cluster.manager.host,
    DOCKER_TLS_VERIFY: '1',
    DOCKER_CERT_PATH: certs,
    REQUESTS_CA_BUNDLE: join(certs, 'ca.pem'),
    SSL_CERT_FILE: join(certs, 'ca.pem'),
  };
  delete env.DOCKER_API_VERSION;
  return new Promise((resolve) => {
    const child = spawn('docker-compose', ['-p', project, '-f', file, ...args], { env, cwd: scratch });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

/** `docker run` as the admin on a node, its container removed before this returns (`--rm` removes it later). */
async function adminRun(node: string, args: string[]): Promise<string> {
  const id = await ok('admin', ['create', '-e', `constraint:node==${node}`, ...args]);
  try {
    await ok('admin', ['start', id]);
    await ok('admin', ['wait', id]);
    return await ok('admin', ['logs', id]);
  } finally {
    await ok('admin', ['rm', '-f', id]);
  }
}

/** Everything there is, as the admin sees it: containers (state and labels), networks, volumes, bob's container's details. */
async function world(): Promise<string> {
  const [containers, networks, volumes, bobDb] = await Promise.all([
    cluster.call('admin', 'GET', '/v1.41/containers/json?all=1'),
    cluster.call('admin', 'GET', '/v1.41/networks'),
    cluster.call('admin', 'GET', '/v1.41/volumes'),
    cluster.call('admin', 'GET', '/v1.41/containers/bob-db/json'),
  ]);
  const rows: string[] = [];
  for (const c of JSON.parse(containers.text) as Array<{ Id: string; Names: string[]; State: string; Labels: Record<string, string> }>) {
    rows.push(`container ${c.Id} ${c.Names.join(',')} ${c.State} ${JSON.stringify(c.Labels)}`);
  }
  for (const n of JSON.parse(networks.text) as Array<{ Id: string; Name: string; Containers?: Record<string, unknown> }>) {
    rows.push(
      `network ${n.Id} ${n.Name} ${Object.keys(n.Containers ?? {})
        .sort()
        .join(',')}`,
    );
  }
  for (const v of (JSON.parse(volumes.text) as { Volumes: Array<{ Name: string; Labels?: Record<string, string> }> }).Volumes ?? []) {
    rows.push(`volume ${v.Name} ${JSON.stringify(v.Labels ?? {})}`);
  }
  const detail = JSON.parse(bobDb.text) as {
    Name: string;
    State: { StartedAt: string; Running: boolean; Paused: boolean };
    RestartCount: number;
    HostConfig: Record<string, unknown>;
    NetworkSettings: { Networks: Record<string, unknown> };
  };
  rows.push(
    `bob-db ${detail.Name} ${detail.State.StartedAt} ${detail.State.Running} ${detail.State.Paused} ${detail.RestartCount} ${JSON.stringify(
      [detail.HostConfig.Memory, detail.HostConfig.NanoCpus, detail.HostConfig.CpuShares, detail.HostConfig.CpuQuota],
    )} ${Object.keys(detail.NetworkSettings.Networks).sort().join(',')}`,
  );
  return rows.sort().join('\n');
}

function changes(before: string, after: string): string[] {
  const a = new Set(before.split('\n'));
  const b = new Set(after.split('\n'));
  return [...[...a].filter((row) => !b.has(row)).map((row) => `- ${row}`), ...[...b].filter((row) => !a.has(row)).map((row) => `+ ${row}`)];
}

/** Replaces `from` where it stands as a whole (not inside a longer word or ID: a short ID prefix is in `daemon`). */
function replaceAll(text: string, from: string, to: string): string {
  if (from === '') return text;
  const escaped = from.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return text.replace(new RegExp(`(?<![0-9A-Za-z])${escaped}(?![0-9A-Za-z])`, 'g'), to);
}

/** What must never show in an answer to alice: bob's ID (past any prefix she typed), team and owner. */
function bobFragments(text: string): string[] {
  const found: string[] = [];
  if (bob.id && text.includes(bob.id.slice(16, 40))) found.push("bob's container ID");
  if (text.includes('team-b')) found.push("bob's team");
  if (/"?com\.docker\.swarm\.owner"?\s*[:=]\s*"?bob\b/.test(text)) found.push("bob's owner label");
  return found;
}

interface Answer {
  readonly code: number;
  readonly out: string;
}

function cli(result: CliResult): Answer {
  return { code: result.code, out: `${result.stdout}\n--stderr--\n${result.stderr}` };
}

function http(result: { status: number; text: string }): Answer {
  return { code: result.status, out: result.text };
}

/**
 * The answers to bob's object and to nobody's, compared modulo the names used. Each of `names` is
 * `[bob's, nobody's]`, replaced by the same placeholder.
 */
function compare(label: string, theirs: Answer, nobodys: Answer, names: ReadonlyArray<readonly [string, string]>): string[] {
  let a = theirs.out;
  let b = nobodys.out;
  names.forEach(([mine, other], i) => {
    a = replaceAll(a, mine, `<ref${i}>`);
    b = replaceAll(b, other, `<ref${i}>`);
  });
  const leaks: string[] = [];
  if (theirs.code !== nobodys.code) leaks.push(`${label}: ${theirs.code} for bob's, ${nobodys.code} for nobody's`);
  if (a !== b)
    leaks.push(`${label}: answers differ:\n  bob's:    ${JSON.stringify(a.slice(0, 600))}\n  nobody's: ${JSON.stringify(b.slice(0, 600))}`);
  for (const fragment of bobFragments(a)) leaks.push(`${label}: the answer shows ${fragment}`);
  return leaks;
}

interface Outcome {
  /** The attempt got nowhere (a refusal or not-found, an empty list). */
  readonly refused: boolean;
  readonly leaks: readonly string[];
  /** What alice was answered, in short, for the results table. */
  readonly answer?: string;
}

/** The first line that says something: the CLI's error, or its output. */
function gist(result: CliResult): string {
  const line = [...result.stderr.split('\n'), ...result.stdout.split('\n')]
    .map((l) => l.trim())
    .find((l) => l !== '' && !l.startsWith("Run 'docker"));
  return `exit ${result.code}${line ? `: ${line.slice(0, 160)}` : ', nothing'}`;
}

/** Runs one attempt between two snapshots of the world, records it in the tally and fails on a leak. */
async function attempt(
  area: string,
  name: string,
  body: () => Promise<Outcome>,
  options: { worldMayChange?: boolean } = {},
): Promise<void> {
  const before = await world();
  let outcome: Outcome;
  try {
    outcome = await body();
  } catch (error) {
    outcome = { refused: false, leaks: [`the attempt failed to run: ${(error as Error).message}`] };
  }
  const after = await world();
  const changed = options.worldMayChange ? [] : changes(before, after);
  const leaks = [...outcome.leaks, ...(changed.length > 0 ? [`the world changed:\n${changed.join('\n')}`] : [])];
  tally.push({ area, name, refused: outcome.refused, leaks, ...(outcome.answer ? { answer: outcome.answer } : {}) });
  expect(leaks).toEqual([]);
  expect(outcome.refused).toBe(true);
}

/** The same CLI command on bob's reference and on nobody's, answers compared. */
async function sameAsNobody(args: (ref: string) => string[], theirs: string, nobodys = NOBODY, person: Person = 'alice'): Promise<Outcome> {
  const [a, b] = await Promise.all([as(person, args(theirs)), as(person, args(nobodys))]);
  return {
    refused: a.code !== 0,
    leaks: compare(`docker ${args(theirs).join(' ')}`, cli(a), cli(b), [[theirs, nobodys]]),
    answer: gist(a),
  };
}

/** Lists: the filter naming bob's object gives the same (empty) list as one naming nobody's. */
async function sameListAsNobody(args: (ref: string) => string[], theirs: string, nobodys: string): Promise<Outcome> {
  const [a, b] = await Promise.all([as('alice', args(theirs)), as('alice', args(nobodys))]);
  return {
    // An empty list, or the same refusal as for a name nobody has (`before=` a missing container).
    refused: a.code !== 0 || a.stdout.trim() === '',
    leaks: compare(`docker ${args(theirs).join(' ')}`, cli(a), cli(b), [[theirs, nobodys]]),
    answer: gist(a),
  };
}

/** A raw request on bob's object and on nobody's. */
async function rawSameAsNobody(
  method: string,
  path: (ref: string) => string,
  theirs: string,
  nobodys: string,
  body?: (ref: string) => unknown,
): Promise<Outcome> {
  const [a, b] = await Promise.all([
    cluster.call('alice', method, path(theirs), body?.(theirs)),
    cluster.call('alice', method, path(nobodys), body?.(nobodys)),
  ]);
  return {
    // a redirect (to the cleaned path) serves nothing either; explain answers a create's refusal as its explanation's `refused`
    refused:
      a.status >= 300 || (path(theirs) === '/_swarm/v1/explain' && (JSON.parse(a.text) as { refused?: unknown }).refused !== undefined),
    leaks: compare(`${method} ${path(theirs)}`, http(a), http(b), [[theirs, nobodys]]),
    answer: `${a.status} ${a.text.slice(0, 160)}`,
  };
}

function randomHex(length: number, avoid: readonly string[]): string {
  for (;;) {
    let text = '';
    while (text.length < length) text += Math.floor(Math.random() * 16).toString(16);
    if (!avoid.some((id) => id.startsWith(text))) return text;
  }
}

/**
 * Every container's ID and swarm ID (`com.docker.swarm.id`), as the admin sees them now: lookups by
 * prefix match either (Swarm classic's rule), so a prefix "nobody has" must begin neither.
 */
async function identifiers(): Promise<Array<[string, string]>> {
  const lines = (await ok('admin', ['ps', '-a', '--no-trunc', '--format', '{{.ID}} {{.Label "com.docker.swarm.id"}}'])).split('\n');
  return lines.filter((line) => line.trim() !== '').map((line) => [line.split(' ')[0]!, line.split(' ')[1] ?? ''] as [string, string]);
}

let allIds: string[] = [];

beforeAll(async () => {
  cluster = await startAccessCluster({ firstEngine: 216, engines: 2, port: PORT, args: ['--ui'], recordEngines: true });
  scratch = mkdtempSync(join(tmpdir(), 'swarm-bypass-'));
  // bob's objects: a network, a container on it, a volume with a secret, an exec, a compose project
  await ok('bob', ['network', 'create', 'bob-net']);
  bob.id = await ok('bob', ['run', '-d', '--name', 'bob-db', '--network', 'bob-net', '--label', 'app=bob-db', ...BOB_RUN, ...SLEEP]);
  await Promise.all([
    ok('bob', ['volume', 'create', 'bob-vol']),
    ok('alice', ['network', 'create', 'alice-net']),
    ok('alice', ['volume', 'create', 'alice-vol']),
    (async () => {
      alice.id = await ok('alice', ['run', '-d', '--name', 'alice-app', ...SLEEP]);
    })(),
    ok('alice', ['create', '--name', 'alice-other', ...SLEEP]),
    // on the default bridge, which every team shares
    (async () => {
      bob.webId = await ok('bob', ['run', '-d', '--name', 'bob-web', ...BOB_RUN, ...SLEEP]);
    })(),
  ]);
  bob.webNode = (await ok('admin', ['ps', '--filter', 'name=bob-web', '--format', '{{.Names}}'])).split('/')[0]!;
  await ok('alice', ['run', '-d', '--name', 'alice-on-bridge', '-e', `constraint:node==${bob.webNode}`, ...SLEEP]);
  bob.node = (await ok('admin', ['ps', '--filter', 'name=bob-db', '--format', '{{.Names}}'])).split('/')[0]!;
  bob.volumeNode = bob.node;
  await adminRun(bob.node, ['-v', 'bob-vol:/d', 'busybox:local', 'sh', '-c', 'echo bob-secret > /d/s']);
  // bob's container named as alice's ID prefix: it must not shadow hers
  alice.prefix = alice.id.slice(0, 7);
  await ok('bob', ['create', '--name', alice.prefix, ...BOB_RUN, ...SLEEP]);
  // bob's compose project
  writeFileSync(
    join(scratch, 'bob-compose.yml'),
    `version: "2.4"\nservices:\n  db:\n    image: busybox:local\n    command: sleep 600\n    user: "1000"\n    security_opt: [no-new-privileges]\n    mem_limit: 64m\n    cpus: 0.5\n`,
  );
  const up = await compose('bob', 'bobproject', join(scratch, 'bob-compose.yml'), ['up', '-d']);
  if (up.code !== 0) throw new Error(`bob's compose up failed: ${up.stderr}`);
  bob.composeIds = (await ok('admin', ['ps', '-aq', '--no-trunc', '--filter', 'label=com.docker.compose.project=bobproject'])).split('\n');
  // events of bob's within a window
  eventsSince = Math.floor(Date.now() / 1000) - 1;
  await ok('bob', ['restart', '-t', '0', 'bob-db']);
  await new Promise((resolve) => setTimeout(resolve, 1100));
  eventsUntil = Math.floor(Date.now() / 1000) + 1;
  // an exec bob made (after the restart, which would drop it): it writes a file when it runs
  const exec = await cluster.call('bob', 'POST', '/v1.41/containers/bob-db/exec', { Cmd: ['sh', '-c', 'echo ran > /dev/shm/exec-ran'] });
  bob.execId = (JSON.parse(exec.text) as { Id: string }).Id;
  allIds = (await identifiers()).flat();
}, 180_000);

afterAll(async () => {
  const tried = tally.length;
  const refused = tally.filter((row) => row.refused).length;
  const leaked = tally.filter((row) => row.leaks.length > 0).length;
  const summary = `tried ${tried}, refused ${refused}, leaked ${leaked}`;
  console.log(`access bypass suite: ${summary}`);
  for (const row of tally.filter((r) => r.leaks.length > 0 || !r.refused))
    console.log(`  LEAK ${row.area} / ${row.name}:\n    ${row.leaks.join('\n    ')}`);
  if (process.env.SWARM_ACCESS_RESULTS) {
    mkdirSync(dirname(RESULTS), { recursive: true });
    const lines = [
      '# Access control bypass suite (test/e2e/access-bypass.test.ts)',
      '',
      `${new Date().toISOString().slice(0, 10)}: alice (team-a) against bob's (team-b) objects through a real \`swarm manage --tlsverify\` (tls + rules + policy) on two dockerd 20.10 engines, with the docker CLI 28 and docker-compose 1.29.`,
      "Each attempt is compared with the same attempt on a name nobody has (same status, same text modulo the name, none of bob's ID, team or owner), and the whole cluster is compared, as the admin sees it, before and after.",
      '',
      `**${summary}**`,
      '',
      '| area | attempt | alice was answered | refused | leaked |',
      '| --- | --- | --- | --- | --- |',
      ...tally.map(
        (row) =>
          `| ${row.area} | ${cell(row.name)} | ${cell(row.answer ?? '')} | ${row.refused ? 'yes' : '**no**'} | ${row.leaks.length > 0 ? `**yes**: ${cell(row.leaks[0]!.split('\n')[0]!)}` : 'no'} |`,
      ),
      '',
    ];
    // the generated suite's section (test/e2e/access-generated.test.ts) follows this one: kept as it is
    const previous = existsSync(RESULTS) ? readFileSync(RESULTS, 'utf8') : '';
    const generated = previous.indexOf('<!-- access-generated: start -->');
    writeFileSync(RESULTS, generated === -1 ? lines.join('\n') : `${lines.join('\n')}\n${previous.slice(generated)}`);
  }
  await cluster?.stop();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe('looking bob’s container up', () => {
  it('by name', () => attempt('lookup', 'container inspect bob-db', () => sameAsNobody((r) => ['container', 'inspect', r], 'bob-db')));
  it('by full ID', () =>
    attempt('lookup', 'container inspect <full ID>', () =>
      sameAsNobody((r) => ['container', 'inspect', r], bob.id, randomHex(64, allIds)),
    ));
  it('by 12-character ID prefix', () =>
    attempt('lookup', 'container inspect <12-char prefix>', () =>
      sameAsNobody((r) => ['container', 'inspect', r], bob.id.slice(0, 12), randomHex(12, allIds)),
    ));
  it('by the shortest ID prefix that only bob’s container has', () =>
    attempt('lookup', 'container inspect <short prefix>', async () => {
      // The IDs as they are now: other tests of this file make containers, and a one- or two-character
      // prefix "nobody has" must be one no container's ID or swarm ID begins with at this moment (and
      // a length at which such a prefix is left at all).
      const pairs = await identifiers();
      const ids = pairs.flat().filter((id) => id !== '');
      const others = pairs.filter(([id]) => id !== bob.id).flat();
      const free = (length: number) => new Set(ids.map((id) => id.slice(0, length))).size < 16 ** length;
      let length = 1;
      while (others.some((id) => id !== '' && id.startsWith(bob.id.slice(0, length))) || !free(length)) length += 1;
      return sameAsNobody((r) => ['container', 'inspect', r], bob.id.slice(0, length), randomHex(length, ids));
    }));
  it('by node/name', () =>
    attempt('lookup', 'container inspect node/bob-db', () =>
      sameAsNobody((r) => ['container', 'inspect', r], `${bob.node}/bob-db`, `${bob.node}/${NOBODY}`),
    ));
  it('with docker inspect (no --type)', () => attempt('lookup', 'inspect bob-db', () => sameAsNobody((r) => ['inspect', r], 'bob-db')));
  it('bob’s container named as alice’s ID prefix does not shadow hers', () =>
    attempt('lookup', "inspect <alice's prefix> = bob's name", async () => {
      const found = await as('alice', ['container', 'inspect', '-f', '{{.Id}}', alice.prefix]);
      const leaks =
        found.stdout.trim() === alice.id
          ? []
          : [`alice's prefix ${alice.prefix} found ${found.stdout.trim() || found.stderr.trim()}, not her ${alice.id}`];
      return { refused: true, leaks };
    }));
});

// Every verb on bob's container, by name: the same answer as for nobody's.
const VERBS: ReadonlyArray<readonly [string, (ref: string) => string[]]> = [
  ['logs', (r) => ['logs', r]],
  ['exec', (r) => ['exec', r, 'echo', 'hi']],
  ['attach', (r) => ['attach', '--no-stdin', r]],
  ['cp from', (r) => ['cp', `${r}:/etc/hostname`, '-']],
  ['cp into', (r) => ['cp', '/etc/hostname', `${r}:/x`]],
  ['stats', (r) => ['stats', '--no-stream', r]],
  ['top', (r) => ['top', r]],
  ['diff', (r) => ['diff', r]],
  ['port', (r) => ['port', r]],
  ['rm', (r) => ['rm', r]],
  ['rm -f', (r) => ['rm', '-f', r]],
  ['stop', (r) => ['stop', '-t', '0', r]],
  ['kill', (r) => ['kill', r]],
  ['restart', (r) => ['restart', '-t', '0', r]],
  ['pause', (r) => ['pause', r]],
  ['unpause', (r) => ['unpause', r]],
  ['rename', (r) => ['rename', r, 'taken-over']],
  ['update', (r) => ['update', '--cpus', '1', r]],
  ['commit', (r) => ['commit', r, 'stolen:1']],
  ['export', (r) => ['export', '-o', join(scratch, 'stolen.tar'), r]],
  ['wait', (r) => ['wait', r]],
];

describe('every verb on bob’s container', () => {
  it.each(VERBS)('%s', (verb, args) =>
    attempt('verb', `${verb} bob-db`, async () => {
      const outcome = await sameAsNobody(args, 'bob-db');
      // `rm -f` of a name nobody has succeeds (the CLI ignores "No such container"): the world check says whether it did anything
      return verb === 'rm -f' ? { ...outcome, refused: outcome.leaks.length === 0 } : outcome;
    }),
  );
  it.each(VERBS.filter(([verb]) => ['logs', 'exec', 'rm', 'stop', 'inspect', 'update'].includes(verb)))('%s by ID prefix', (verb, args) =>
    attempt('verb', `${verb} <ID prefix>`, () => sameAsNobody(args, bob.id.slice(0, 10), randomHex(10, allIds))),
  );
});

describe('ps filters', () => {
  const ps = (filter: string) => ['ps', '-aq', '--no-trunc', '--filter', filter];
  it('id=<full ID>', () =>
    attempt('ps filter', 'ps --filter id=<ID>', () => sameListAsNobody((r) => ps(`id=${r}`), bob.id, randomHex(64, allIds))));
  it('id=<prefix>', () =>
    attempt('ps filter', 'ps --filter id=<prefix>', () =>
      sameListAsNobody((r) => ps(`id=${r}`), bob.id.slice(0, 6), randomHex(6, allIds)),
    ));
  it('name=bob-db', () =>
    attempt('ps filter', 'ps --filter name=bob-db', () => sameListAsNobody((r) => ps(`name=${r}`), 'bob-db', NOBODY)));
  it('name=<part>', () => attempt('ps filter', 'ps --filter name=bob', () => sameListAsNobody((r) => ps(`name=${r}`), 'bob', 'nobod')));
  it('label=com.docker.swarm.owner=bob', () =>
    attempt('ps filter', 'ps --filter label=owner=bob', () =>
      sameListAsNobody((r) => ps(`label=com.docker.swarm.owner=${r}`), 'bob', 'nobody'),
    ));
  it('label=com.docker.swarm.team=team-b', () =>
    attempt('ps filter', 'ps --filter label=team=team-b', () =>
      sameListAsNobody((r) => ps(`label=com.docker.swarm.team=${r}`), 'team-b', 'team-z'),
    ));
  it('label=app=bob-db (bob’s own label)', () =>
    attempt('ps filter', 'ps --filter label=app=bob-db', () => sameListAsNobody((r) => ps(`label=app=${r}`), 'bob-db', NOBODY)));
  it('label=com.docker.compose.project=bobproject', () =>
    attempt('ps filter', 'ps --filter label=compose project', () =>
      sameListAsNobody((r) => ps(`label=com.docker.compose.project=${r}`), 'bobproject', 'nobodyproject'),
    ));
  it('network=bob-net', () =>
    attempt('ps filter', 'ps --filter network=bob-net', () => sameListAsNobody((r) => ps(`network=${r}`), 'bob-net', 'nobody-net')));
  it('volume=bob-vol', () =>
    attempt('ps filter', 'ps --filter volume=bob-vol', () => sameListAsNobody((r) => ps(`volume=${r}`), 'bob-vol', 'nobody-vol')));
  it('before=bob-db', () =>
    attempt('ps filter', 'ps --filter before=bob-db', () => sameListAsNobody((r) => ps(`before=${r}`), 'bob-db', NOBODY)));
  it('since=bob-db', () =>
    attempt('ps filter', 'ps --filter since=bob-db', () => sameListAsNobody((r) => ps(`since=${r}`), 'bob-db', NOBODY)));
  it('stats --no-stream of everything', () =>
    attempt('ps filter', 'stats --no-stream (all)', async () => {
      const stats = await as('alice', ['stats', '--no-stream', '--no-trunc', '--format', '{{.ID}} {{.Name}}']);
      const leaks = [...bobFragments(stats.stdout), ...(stats.stdout.includes('bob-db') ? ['bob-db listed'] : [])];
      return { refused: stats.code === 0, leaks };
    }));
});

describe('events filters', () => {
  const events = (filter: string) => [
    'events',
    '--since',
    String(eventsSince),
    '--until',
    String(eventsUntil),
    '--format',
    '{{json .}}',
    ...(filter ? ['--filter', filter] : []),
  ];
  it('bob’s events exist (the admin sees them)', async () => {
    const all = await ok('admin', events('container=bob-db'));
    expect(all).toContain('"restart"');
  });
  it('container=bob-db', () =>
    attempt('events filter', 'events --filter container=bob-db', () =>
      sameListAsNobody((r) => events(`container=${r}`), 'bob-db', NOBODY),
    ));
  it('container=<ID>', () =>
    attempt('events filter', 'events --filter container=<ID>', () =>
      sameListAsNobody((r) => events(`container=${r}`), bob.id, randomHex(64, allIds)),
    ));
  it('label=com.docker.swarm.owner=bob', () =>
    attempt('events filter', 'events --filter label=owner=bob', () =>
      sameListAsNobody((r) => events(`label=com.docker.swarm.owner=${r}`), 'bob', 'nobody'),
    ));
  it('label=com.docker.swarm.team=team-b', () =>
    attempt('events filter', 'events --filter label=team=team-b', () =>
      sameListAsNobody((r) => events(`label=com.docker.swarm.team=${r}`), 'team-b', 'team-z'),
    ));
  it('network=bob-net', () =>
    attempt('events filter', 'events --filter network=bob-net', () =>
      sameListAsNobody((r) => events(`network=${r}`), 'bob-net', 'nobody-net'),
    ));
  it('no filter: nothing of bob’s', () =>
    attempt('events filter', 'events (no filter)', async () => {
      const all = await as('alice', events(''));
      const leaks = [
        ...bobFragments(all.stdout),
        ...(all.stdout.includes('bob-db') || all.stdout.includes(bob.id) ? ["bob's container's events"] : []),
      ];
      return { refused: all.code === 0, leaks };
    }));
});

describe('exec IDs bob created', () => {
  const fake = () => randomHex(64, [bob.execId]);
  it('GET /exec/{id}/json', () =>
    attempt('exec', 'GET /exec/<bob exec>/json', () => rawSameAsNobody('GET', (r) => `/v1.41/exec/${r}/json`, bob.execId, fake())));
  it('POST /exec/{id}/start', () =>
    attempt('exec', 'POST /exec/<bob exec>/start', () =>
      rawSameAsNobody(
        'POST',
        (r) => `/v1.41/exec/${r}/start`,
        bob.execId,
        fake(),
        () => ({ Detach: true }),
      ),
    ));
  it('POST /exec/{id}/resize', () =>
    attempt('exec', 'POST /exec/<bob exec>/resize', () =>
      rawSameAsNobody('POST', (r) => `/v1.41/exec/${r}/resize?h=10&w=10`, bob.execId, fake()),
    ));
  it('GET /exec/{prefix}/json', () =>
    attempt('exec', 'GET /exec/<prefix>/json', () =>
      rawSameAsNobody('GET', (r) => `/v1.41/exec/${r}/json`, bob.execId.slice(0, 12), randomHex(12, [bob.execId])),
    ));
  it('bob’s exec never ran', async () => {
    const [inspect, file] = await Promise.all([
      cluster.call('bob', 'GET', `/v1.41/exec/${bob.execId}/json`),
      as('bob', ['exec', 'bob-db', 'cat', '/dev/shm/exec-ran']),
    ]);
    expect(JSON.parse(inspect.text)).toMatchObject({ Running: false, ExitCode: null });
    expect(file.code).not.toBe(0);
  });
});

// `docker run` naming bob's container: the CLI's --pull never keeps a 404 from turning into a pull.
const run = (extra: string[]) => ['run', '-d', '--pull', 'never', ...extra, ...SLEEP];
const REFERENCES: ReadonlyArray<readonly [string, (ref: string) => string[], () => [string, string]]> = [
  ['--volumes-from name', (r) => run(['--volumes-from', r]), () => ['bob-db', NOBODY]],
  ['--volumes-from name:ro', (r) => run(['--volumes-from', `${r}:ro`]), () => ['bob-db', NOBODY]],
  ['--volumes-from ID', (r) => run(['--volumes-from', r]), () => [bob.id, randomHex(64, allIds)]],
  ['--volumes-from ID prefix', (r) => run(['--volumes-from', r]), () => [bob.id.slice(0, 12), randomHex(12, allIds)]],
  ['--network container:name', (r) => run(['--network', `container:${r}`]), () => ['bob-db', NOBODY]],
  ['--network container:ID', (r) => run(['--network', `container:${r}`]), () => [bob.id, randomHex(64, allIds)]],
  ['--pid container:name', (r) => run(['--pid', `container:${r}`]), () => ['bob-db', NOBODY]],
  ['--ipc container:name', (r) => run(['--ipc', `container:${r}`]), () => ['bob-db', NOBODY]],
  ['--link name:alias', (r) => run(['--link', `${r}:db`]), () => ['bob-db', NOBODY]],
  ['--link node/name:alias', (r) => run(['--link', `${r}:db`]), () => [`${bob.node}/bob-db`, `${bob.node}/${NOBODY}`]],
  ['-e affinity:container==name', (r) => run(['-e', `affinity:container==${r}`]), () => ['bob-db', NOBODY]],
  ['-e affinity:container==ID', (r) => run(['-e', `affinity:container==${r}`]), () => [bob.id, randomHex(64, allIds)]],
  ['-e affinity:container==~name (soft)', (r) => run(['-e', `affinity:container==~${r}`]), () => ['bob-db', NOBODY]],
  ['-e affinity:container!=name', (r) => run(['-e', `affinity:container!=${r}`]), () => ['bob-db', NOBODY]],
  [
    '--label com.docker.swarm.affinities',
    (r) => run(['--label', `com.docker.swarm.affinities=["container==${r}"]`]),
    () => ['bob-db', NOBODY],
  ],
  ['-e affinity:container==glob*', (r) => run(['-e', `affinity:container==${r}*`]), () => ['bob-d', 'nobody-']],
  ['-e affinity:container==/regexp/', (r) => run(['-e', `affinity:container==/${r}.*/`]), () => ['bob-d', 'nobody-']],
  [
    '-e affinity:com.docker.swarm.owner==bob (label affinity)',
    (r) => run(['-e', `affinity:com.docker.swarm.owner==${r}`]),
    () => ['bob', 'nobody'],
  ],
  [
    '-e affinity:com.docker.swarm.team==team-b (label affinity)',
    (r) => run(['-e', `affinity:com.docker.swarm.team==${r}`]),
    () => ['team-b', 'team-z'],
  ],
  ['-e affinity:app==bob-db (bob’s own label)', (r) => run(['-e', `affinity:app==${r}`]), () => ['bob-db', NOBODY]],
  ['--network bob-net', (r) => run(['--network', r]), () => ['bob-net', 'nobody-net']],
];

describe('creates that name bob’s objects', () => {
  it.each(REFERENCES)('%s', (name, args, refs) =>
    attempt('create reference', `run ${name}`, () => {
      const [theirs, nobodys] = refs();
      return sameAsNobody(args, theirs, nobodys);
    }),
  );
  it('-v bob-vol:/d (bob’s named volume, on its node)', () =>
    attempt('create reference', 'run -v bob-vol:/d', async () => {
      const read = await as('alice', [
        'run',
        '--rm',
        '--pull',
        'never',
        '-e',
        `constraint:node==${bob.volumeNode}`,
        '-v',
        'bob-vol:/d',
        'busybox:local',
        'sh',
        '-c',
        'cat /d/s; echo alice > /d/s',
      ]);
      const secret = await adminRun(bob.volumeNode, ['-v', 'bob-vol:/d', 'busybox:local', 'cat', '/d/s']);
      const leaks = [
        ...(read.stdout.includes('bob-secret') ? ["alice read bob's volume"] : []),
        ...(secret !== 'bob-secret' ? [`alice wrote into bob's volume: ${secret}`] : []),
        ...bobFragments(read.stderr),
      ];
      return { refused: read.code !== 0, leaks, answer: gist(read) };
    }));
  it('--mount type=volume,src=bob-vol', () =>
    attempt('create reference', 'run --mount src=bob-vol', async () => {
      const read = await as('alice', [
        'run',
        '--rm',
        '--pull',
        'never',
        '-e',
        `constraint:node==${bob.volumeNode}`,
        '--mount',
        'type=volume,src=bob-vol,dst=/d',
        'busybox:local',
        'cat',
        '/d/s',
      ]);
      return {
        refused: read.code !== 0,
        leaks: [...(read.stdout.includes('bob-secret') ? ["alice read bob's volume"] : []), ...bobFragments(read.stderr)],
        answer: gist(read),
      };
    }));
  it('/_swarm/v1/explain with affinity:container==bob-db', () =>
    attempt('create reference', 'explain affinity:container==bob-db', () =>
      rawSameAsNobody(
        'POST',
        () => '/_swarm/v1/explain',
        'bob-db',
        NOBODY,
        (r) => ({ Image: 'busybox:local', Env: [`affinity:container==${r}`] }),
      ),
    ));
  it('/_swarm/v1/explain with affinity:com.docker.swarm.owner==bob', () =>
    attempt('create reference', 'explain affinity:owner==bob', async () => {
      const outcome = await rawSameAsNobody(
        'POST',
        () => '/_swarm/v1/explain',
        'bob',
        'nobody',
        (r) => ({
          Image: 'busybox:local',
          Env: [`affinity:com.docker.swarm.owner==${r}`],
        }),
      );
      // a label affinity names no object: the dry run answers 200 either way, and must say the same
      return { ...outcome, refused: outcome.leaks.length === 0 };
    }));
});

describe('networks and volumes of bob’s', () => {
  it('network inspect', () =>
    attempt('network', 'network inspect bob-net', () => sameAsNobody((r) => ['network', 'inspect', r], 'bob-net', 'nobody-net')));
  it('network inspect node/name', () =>
    attempt('network', 'network inspect node/bob-net', () =>
      sameAsNobody((r) => ['network', 'inspect', r], `${bob.node}/bob-net`, `${bob.node}/nobody-net`),
    ));
  it('network rm', () =>
    attempt('network', 'network rm bob-net', () => sameAsNobody((r) => ['network', 'rm', r], 'bob-net', 'nobody-net')));
  it('network connect bob-net alice-app', () =>
    attempt('network', 'network connect bob-net alice-app', () =>
      sameAsNobody((r) => ['network', 'connect', r, 'alice-app'], 'bob-net', 'nobody-net'),
    ));
  it('network connect alice-net bob-db (bob’s container in the body)', () =>
    attempt('network', 'network connect alice-net bob-db', () => sameAsNobody((r) => ['network', 'connect', 'alice-net', r], 'bob-db')));
  it('network disconnect bob-net bob-db', () =>
    attempt('network', 'network disconnect bob-net bob-db', () =>
      sameAsNobody((r) => ['network', 'disconnect', r, 'bob-db'], 'bob-net', 'nobody-net'),
    ));
  it('network disconnect <shared bridge> bob-web', () =>
    attempt('network', 'network disconnect node/bridge bob-web', () =>
      sameAsNobody((r) => ['network', 'disconnect', `${bob.webNode}/bridge`, r], 'bob-web'),
    ));
  it('network disconnect -f <shared bridge> bob-web', () =>
    attempt('network', 'network disconnect -f node/bridge bob-web', () =>
      sameAsNobody((r) => ['network', 'disconnect', '-f', `${bob.webNode}/bridge`, r], 'bob-web'),
    ));
  it('network connect <shared bridge> bob-db', () =>
    attempt('network', 'network connect node/bridge bob-db', () =>
      sameAsNobody((r) => ['network', 'connect', `${bob.node}/bridge`, r], 'bob-db'),
    ));
  it('network inspect of the shared bridge lists alice’s containers, not bob’s', () =>
    attempt('network', 'network inspect node/bridge (its Containers)', async () => {
      const result = await as('alice', ['network', 'inspect', '-f', '{{json .Containers}}', `${bob.webNode}/bridge`]);
      const listed = result.code === 0 ? Object.entries(JSON.parse(result.stdout) as Record<string, { Name: string }>) : [];
      const leaks = listed
        .filter(([id, endpoint]) => id === bob.webId || endpoint.Name === 'bob-web')
        .map(([id, endpoint]) => `the bridge lists bob's ${endpoint.Name} (${id.slice(0, 12)})`);
      if (!listed.some(([, endpoint]) => endpoint.Name === 'alice-on-bridge'))
        leaks.push(`the bridge does not list alice's own container: ${result.stdout.slice(0, 200)}${result.stderr}`);
      return {
        refused: result.code === 0,
        leaks,
        answer: `exit ${result.code}: ${listed.map(([, endpoint]) => endpoint.Name).join(', ')}`,
      };
    }));
  it('network ls --filter name=bob-net', () =>
    attempt('network', 'network ls --filter name', () =>
      sameListAsNobody((r) => ['network', 'ls', '-q', '--filter', `name=${r}`], 'bob-net', 'nobody-net'),
    ));
  it('volume inspect', () =>
    attempt('volume', 'volume inspect bob-vol', () => sameAsNobody((r) => ['volume', 'inspect', r], 'bob-vol', 'nobody-vol')));
  it('volume inspect node/name', () =>
    attempt('volume', 'volume inspect node/bob-vol', () =>
      sameAsNobody((r) => ['volume', 'inspect', r], `${bob.volumeNode}/bob-vol`, `${bob.volumeNode}/nobody-vol`),
    ));
  it('volume rm', () => attempt('volume', 'volume rm bob-vol', () => sameAsNobody((r) => ['volume', 'rm', r], 'bob-vol', 'nobody-vol')));
  it('volume ls --filter name=bob-vol', () =>
    attempt('volume', 'volume ls --filter name', () =>
      sameListAsNobody((r) => ['volume', 'ls', '-q', '--filter', `name=${r}`], 'bob-vol', 'nobody-vol'),
    ));
});

describe('forged owner and team labels', () => {
  const forged = async (args: string[], pattern: RegExp): Promise<Outcome> => {
    const result = await as('alice', args);
    return {
      answer: gist(result),
      refused: result.code !== 0 && pattern.test(result.stderr),
      leaks: [
        ...bobFragments(result.stderr.replace(/com\.docker\.swarm\.owner=bob|team-b/g, '')),
        ...(result.code === 0 ? [`accepted: ${result.stdout.trim()}`] : []),
      ],
    };
  };
  const refusal = (kind: string, label: string) =>
    new RegExp(
      `user alice \\(groups team-a\\) may not ${kind}: label ${label.replace(/\./g, '\\.')} is written by the manager, and only the admin role may set it`,
    );
  it('run --label com.docker.swarm.owner=bob', () =>
    attempt('forged label', 'run --label owner=bob', () =>
      forged(run(['--label', 'com.docker.swarm.owner=bob']), refusal('container.create', 'com.docker.swarm.owner')),
    ));
  it('run --label com.docker.swarm.team=team-b', () =>
    attempt('forged label', 'run --label team=team-b', () =>
      forged(run(['--label', 'com.docker.swarm.team=team-b']), refusal('container.create', 'com.docker.swarm.team')),
    ));
  it('network create --label com.docker.swarm.team=team-b', () =>
    attempt('forged label', 'network create --label team', () =>
      forged(
        ['network', 'create', '--label', 'com.docker.swarm.team=team-b', 'forged-net'],
        refusal('network.create', 'com.docker.swarm.team'),
      ),
    ));
  it('volume create --label com.docker.swarm.owner=bob', () =>
    attempt('forged label', 'volume create --label owner', () =>
      forged(
        ['volume', 'create', '--label', 'com.docker.swarm.owner=bob', 'forged-vol'],
        refusal('volume.create', 'com.docker.swarm.owner'),
      ),
    ));
  it('POST /containers/{id}/update with Labels', () =>
    attempt('forged label', 'update Labels owner=bob', async () => {
      const answer = await cluster.call('alice', 'POST', '/v1.41/containers/alice-app/update', {
        Labels: { 'com.docker.swarm.owner': 'bob' },
      });
      // An update has no Labels (dockerd's UpdateConfig): swarm judges and sends what dockerd
      // reads, without them, so the update changes nothing of the owner.
      const inspect = await cluster.call('admin', 'GET', '/containers/alice-app/json');
      const owner = (JSON.parse(inspect.text) as { Config: { Labels: Record<string, string> } }).Config.Labels['com.docker.swarm.owner'];
      return {
        refused: (answer.status === 403 && refusal('container.update', 'com.docker.swarm.owner').test(answer.text)) || owner === 'alice',
        leaks: owner === 'alice' ? [] : [`owner after the update: ${owner}`],
        answer: `${answer.status} ${answer.text.slice(0, 160)}`,
      };
    }));
  it('POST /containers/create with Labels as a key=value list', () =>
    attempt('forged label', 'create Labels ["owner=bob"]', async () => {
      const answer = await cluster.call('alice', 'POST', '/v1.41/containers/create?name=forged-list', {
        Image: 'busybox:local',
        Cmd: ['sleep', '600'],
        Labels: ['com.docker.swarm.owner=bob', 'com.docker.swarm.team=team-b'],
      });
      return {
        refused: answer.status >= 400,
        leaks: answer.status < 300 ? [`created: ${answer.text}`] : [],
        answer: `${answer.status} ${answer.text.slice(0, 160)}`,
      };
    }));
  it('an image whose LABELs name bob does not make alice’s container his', () =>
    attempt(
      'forged label',
      'commit --change LABEL owner/team, then run',
      async () => {
        await ok('alice', [
          'commit',
          '--change',
          'LABEL com.docker.swarm.owner=bob com.docker.swarm.team=team-b',
          'alice-app',
          'alice-forged:1',
        ]);
        const made = await as('alice', ['run', '-d', '--pull', 'never', '--name', 'alice-forged', 'alice-forged:1', 'sleep', '600']);
        const [labels, bobSees, aliceSees] = await Promise.all([
          ok('admin', [
            'container',
            'inspect',
            '-f',
            '{{index .Config.Labels "com.docker.swarm.owner"}} {{index .Config.Labels "com.docker.swarm.team"}}',
            'alice-forged',
          ]),
          as('bob', ['container', 'inspect', 'alice-forged']),
          as('alice', ['container', 'inspect', 'alice-forged']),
        ]);
        await ok('alice', ['rm', '-f', 'alice-forged']);
        const leaks = [
          ...(labels !== 'alice team-a' ? [`the container's owner/team are "${labels}"`] : []),
          ...(bobSees.code === 0 ? ['bob sees it'] : []),
          ...(aliceSees.code !== 0 ? ['alice does not see her own container'] : []),
        ];
        return { refused: made.code === 0, leaks };
      },
      // alice's own image and container come and go
      { worldMayChange: true },
    ));
});

/** A request with a body written by hand (JSON that dockerd reads differently from JSON.parse). */
function rawCall(person: Person, method: string, path: string, body: string): Promise<{ status: number; text: string }> {
  return httpsCall(cluster.dir, PORT, person, method, path, new RawJson(body));
}

// dockerd's Go decoder matches keys to fields whatever their case, in the order they come: a
// `labels` after `Labels` adds to (and overrides) the labels the manager wrote.
const FORGED_SPELLINGS: ReadonlyArray<readonly [string, string, string, (name: string) => string[]]> = [
  [
    'container create with "labels" after "Labels"',
    '/v1.41/containers/create?name=forged-case-c',
    '{"Image":"busybox:local","Cmd":["sleep","600"],"Labels":{"app":"x"},"labels":{"com.docker.swarm.owner":"bob","com.docker.swarm.team":"team-b"}}',
    (name) => [
      'container',
      'inspect',
      '-f',
      '{{index .Config.Labels "com.docker.swarm.owner"}} {{index .Config.Labels "com.docker.swarm.team"}}',
      name,
    ],
  ],
  [
    'container create with "labels" alone',
    '/v1.41/containers/create?name=forged-case-d',
    '{"Image":"busybox:local","Cmd":["sleep","600"],"labels":{"com.docker.swarm.owner":"bob","com.docker.swarm.team":"team-b"}}',
    (name) => [
      'container',
      'inspect',
      '-f',
      '{{index .Config.Labels "com.docker.swarm.owner"}} {{index .Config.Labels "com.docker.swarm.team"}}',
      name,
    ],
  ],
  [
    'network create with "labels" after "Labels"',
    '/v1.41/networks/create',
    '{"Name":"forged-case-n","Labels":{"app":"x"},"labels":{"com.docker.swarm.owner":"bob","com.docker.swarm.team":"team-b"}}',
    (name) => ['network', 'inspect', '-f', '{{index .Labels "com.docker.swarm.owner"}} {{index .Labels "com.docker.swarm.team"}}', name],
  ],
  [
    'volume create with "labels" after "Labels"',
    '/v1.41/volumes/create',
    '{"Name":"forged-case-v","Labels":{"app":"x"},"labels":{"com.docker.swarm.owner":"bob","com.docker.swarm.team":"team-b"}}',
    (name) => ['volume', 'inspect', '-f', '{{index .Labels "com.docker.swarm.owner"}} {{index .Labels "com.docker.swarm.team"}}', name],
  ],
];

describe('forged labels spelt as dockerd reads them', () => {
  it.each(FORGED_SPELLINGS)('%s', (what, path, body, inspect) =>
    attempt(
      'forged label',
      what,
      async () => {
        const name = /"Name":"([^"]+)"/.exec(body)?.[1] ?? new URL(`https://x${path}`).searchParams.get('name')!;
        const answer = await rawCall('alice', 'POST', path, body);
        if (answer.status >= 400) return { refused: true, leaks: [], answer: `${answer.status} ${answer.text.slice(0, 160)}` };
        // a volume is made on every node: ask about one of them
        const target = path.startsWith('/v1.41/volumes') ? `${bob.node}/${name}` : name;
        const labels = (await ok('admin', inspect(target))).split('\n')[0]!;
        return {
          refused: labels === 'alice team-a',
          leaks: labels === 'alice team-a' ? [] : [`created with owner/team "${labels}"`],
          answer: `${answer.status}; owner/team ${labels}`,
        };
      },
      // alice's own object may be made: what matters is whose it is
      { worldMayChange: true },
    ),
  );
});

// The references checks read HostConfig as JSON.parse sees it; dockerd reads `hostconfig` and
// `volumesfrom` as HostConfig and VolumesFrom.
const REFERENCE_SPELLINGS: ReadonlyArray<readonly [string, (ref: string) => string, () => [string, string]]> = [
  ['"hostconfig":{"NetworkMode":"container:<bob-db>"}', (r) => `"hostconfig":{"NetworkMode":"container:${r}"}`, () => ['bob-db', NOBODY]],
  ['"HostConfig":{"volumesfrom":["<bob-db>"]}', (r) => `"HostConfig":{"volumesfrom":["${r}"]}`, () => ['bob-db', NOBODY]],
  ['"hostconfig":{"Binds":["<bob-vol>:/d"]}', (r) => `"hostconfig":{"Binds":["${r}:/d"]}`, () => ['bob-vol', 'nobody-vol']],
];

describe('creates that name bob’s objects, spelt as dockerd reads them', () => {
  it.each(REFERENCE_SPELLINGS)('%s', (what, host, refs) =>
    attempt('create reference', `raw create ${what}`, async () => {
      const [theirs, nobodys] = refs();
      const body = (r: string) => `{"Image":"busybox:local","Cmd":["sleep","600"],"Env":["constraint:node==${bob.node}"],${host(r)}}`;
      const a = await rawCall('alice', 'POST', '/v1.41/containers/create', body(theirs));
      if (theirs === 'bob-vol') {
        // a volume name nobody holds is created, as by docker run: nothing to compare with
        const leaks = a.status < 300 ? [`created (${a.status}): alice's container mounts bob's volume`] : bobFragments(a.text);
        return { refused: a.status >= 400, leaks, answer: `${a.status} ${a.text.slice(0, 160)}` };
      }
      const b = await rawCall('alice', 'POST', '/v1.41/containers/create', body(nobodys));
      if (b.status < 300) await ok('admin', ['rm', '-f', (JSON.parse(b.text) as { Id: string }).Id]);
      const leaks = compare(what, http(a), http(b), [[theirs, nobodys]]);
      return { refused: a.status >= 400, leaks, answer: `${a.status} ${a.text.slice(0, 160)}` };
    }),
  );
});

// The path the access check reads and the path the router serves must be the same path.
const PATHS: ReadonlyArray<readonly [string, (ref: string) => string]> = [
  ['/containers/alice-app/../<ref>/json', (r) => `/v1.41/containers/alice-app/../${r}/json`],
  [
    '/containers/<ref percent-encoded>/json',
    (r) => `/v1.41/containers/${[...r].map((c) => `%${c.charCodeAt(0).toString(16)}`).join('')}/json`,
  ],
  ['//containers/<ref>/json (double slash)', (r) => `/v1.41//containers/${r}/json`],
  ['/containers/<ref>/json/ (trailing slash)', (r) => `/v1.41/containers/${r}/json/`],
  ['/containers/alice-app%2F..%2F<ref>/json', (r) => `/v1.41/containers/alice-app%2F..%2F${r}/json`],
  ['/V1.41/containers/<ref>/json (upper-case version)', (r) => `/V1.41/containers/${r}/json`],
  ['/containers/<ref>/logs?stdout=1 with a fragment', (r) => `/v1.41/containers/${r}/logs?stdout=1#/containers/alice-app/logs`],
];

describe('paths the router may read differently', () => {
  it.each(PATHS)('%s', (what, path) => attempt('path', what, () => rawSameAsNobody('GET', path, 'bob-db', NOBODY)));
});

/** A create whose body comes chunked (no Content-Length), or with another content type. */
function framedCreate(body: unknown, headers: Record<string, string>): Promise<{ status: number; text: string }> {
  const file = (name: string) => readFileSync(join(cluster.dir, name));
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: PORT,
        method: 'POST',
        path: '/v1.41/containers/create',
        ca: file('ca.pem'),
        cert: file('alice-cert.pem'),
        key: file('alice-key.pem'),
        headers,
      },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    const text = JSON.stringify(body);
    // two writes without a length: Node sends them chunked
    req.write(text.slice(0, 20));
    req.end(text.slice(20));
  });
}

describe('create bodies framed otherwise', () => {
  const forged = {
    Image: 'busybox:local',
    Cmd: ['sleep', '600'],
    Labels: { 'com.docker.swarm.owner': 'bob', 'com.docker.swarm.team': 'team-b' },
  };
  const referencing = { Image: 'busybox:local', Cmd: ['sleep', '600'], HostConfig: { VolumesFrom: ['bob-db'] } };
  const FRAMINGS: ReadonlyArray<readonly [string, unknown, Record<string, string>]> = [
    ['chunked, forged owner label', forged, { 'Content-Type': 'application/json' }],
    ['chunked, --volumes-from bob-db', referencing, { 'Content-Type': 'application/json' }],
    ['text/plain, forged owner label', forged, { 'Content-Type': 'text/plain' }],
    ['no content type, --volumes-from bob-db', referencing, {}],
  ];
  it.each(FRAMINGS)('%s', (what, body, headers) =>
    attempt('framing', what, async () => {
      const answer = await framedCreate(body, headers);
      return {
        refused: answer.status >= 400,
        leaks: answer.status < 300 ? [`created: ${answer.text.slice(0, 120)}`] : bobFragments(answer.text),
        answer: `${answer.status} ${answer.text.slice(0, 160)}`,
      };
    }),
  );
});

describe('names bob holds', () => {
  // A name is the cluster's: taking bob's is refused as taking alice's own other container's name
  // is, in the same words, without his ID.
  it('rename alice-app onto bob-db', () =>
    attempt('name', 'rename onto bob-db', async () => {
      const [theirs, own] = await Promise.all([
        as('alice', ['rename', 'alice-app', 'bob-db']),
        as('alice', ['rename', 'alice-app', 'alice-other']),
      ]);
      return {
        refused: theirs.code !== 0,
        leaks: compare('rename alice-app bob-db', cli(theirs), cli(own), [['bob-db', 'alice-other']]),
        answer: gist(theirs),
      };
    }));
  it('run --name bob-db', () =>
    attempt('name', 'create --name bob-db', async () => {
      const [theirs, own] = await Promise.all([
        as('alice', ['create', '--name', 'bob-db', ...SLEEP]),
        as('alice', ['create', '--name', 'alice-other', ...SLEEP]),
      ]);
      return {
        refused: theirs.code !== 0,
        leaks: compare('create --name bob-db', cli(theirs), cli(own), [['bob-db', 'alice-other']]),
        answer: gist(theirs),
      };
    }));
});

describe('compose', () => {
  const project = (name: string, service: string) => {
    const file = join(scratch, `${name}.yml`);
    writeFileSync(file, `version: "2.4"\nservices:\n  app:\n    image: busybox:local\n    command: sleep 600\n${service}`);
    return file;
  };
  const composeSame = async (label: string, service: (ref: string) => string): Promise<Outcome> => {
    const theirs = project('alice-b', service('bob-db'));
    const nobodys = project('alice-n', service(NOBODY));
    const [a, b] = await Promise.all([compose('alice', 'aliceb', theirs, ['up', '-d']), compose('alice', 'alicen', nobodys, ['up', '-d'])]);
    return {
      refused: a.code !== 0,
      answer: gist(a),
      leaks: compare(label, cli(a), cli(b), [
        ['bob-db', NOBODY],
        ['aliceb', 'alicen'],
      ]),
    };
  };
  it('volumes_from: container:bob-db', () =>
    attempt('compose', 'volumes_from container:bob-db', () =>
      composeSame('volumes_from', (r) => `    network_mode: bridge\n    volumes_from: ["container:${r}"]\n`),
    ));
  it('network_mode: container:bob-db', () =>
    attempt('compose', 'network_mode container:bob-db', () => composeSame('network_mode', (r) => `    network_mode: "container:${r}"\n`)));
  it('pid: container:bob-db', () =>
    attempt('compose', 'pid container:bob-db', () => composeSame('pid', (r) => `    network_mode: bridge\n    pid: "container:${r}"\n`)));
  it('external_links: bob-db', () =>
    attempt('compose', 'external_links bob-db', () =>
      composeSame('external_links', (r) => `    network_mode: bridge\n    external_links: ["${r}:db"]\n`),
    ));
  it('docker-compose -p bobproject ps/down by alice do not touch bob’s project', () =>
    attempt('compose', '-p bobproject ps, stop, down', async () => {
      const file = join(scratch, 'bob-compose.yml');
      const [ps, psNobody] = await Promise.all([
        compose('alice', 'bobproject', file, ['ps', '-q']),
        compose('alice', 'nobodyproject', file, ['ps', '-q']),
      ]);
      const stop = await compose('alice', 'bobproject', file, ['stop', '-t', '0']);
      const down = await compose('alice', 'bobproject', file, ['down']);
      const downNobody = await compose('alice', 'nobodyproject', file, ['down']);
      const running = await ok('admin', ['ps', '-q', '--no-trunc', '--filter', 'label=com.docker.compose.project=bobproject']);
      return {
        answer: `ps: ${gist(ps)}; down: ${gist(down)}`,
        refused: ps.stdout.trim() === '' && stop.code === 0,
        leaks: [
          ...compare('compose ps', cli(ps), cli(psNobody), [['bobproject', 'nobodyproject']]),
          ...compare('compose down', cli(down), cli(downNobody), [['bobproject', 'nobodyproject']]),
          ...(running.split('\n').sort().join() !== [...bob.composeIds].sort().join()
            ? [`bob's project's containers are now ${running}`]
            : []),
        ],
      };
    }));
  it('a container alice labels com.docker.compose.project=bobproject is not in bob’s project', () =>
    attempt(
      'compose',
      'forged compose project label',
      async () => {
        await ok(
          'alice',
          run([
            '--name',
            'alice-in-bobproject',
            '--label',
            'com.docker.compose.project=bobproject',
            '--label',
            'com.docker.compose.service=db',
          ]),
        );
        const file = join(scratch, 'bob-compose.yml');
        const bobPs = await compose('bob', 'bobproject', file, ['ps', '-q']);
        const aliceDown = await compose('alice', 'bobproject', file, ['down']);
        const [left, mine] = await Promise.all([
          ok('admin', [
            'ps',
            '-aq',
            '--no-trunc',
            '--filter',
            'label=com.docker.compose.project=bobproject',
            '--filter',
            'label=com.docker.swarm.team=team-b',
          ]),
          as('alice', ['container', 'inspect', 'alice-in-bobproject']),
        ]);
        await as('alice', ['rm', '-f', 'alice-in-bobproject']);
        const bobIds = bobPs.stdout.trim().split('\n').filter(Boolean);
        return {
          refused: aliceDown.code === 0 && mine.code !== 0,
          leaks: [
            ...(bobIds.sort().join() !== [...bob.composeIds].sort().join() ? [`bob's compose ps lists ${bobIds.join(', ')}`] : []),
            ...(left.split('\n').sort().join() !== [...bob.composeIds].sort().join() ? [`bob's project now holds ${left}`] : []),
          ],
        };
      },
      { worldMayChange: true },
    ));
});

describe('forwarded-identity headers sent by a client', () => {
  const forwarded = (user: string, groups: string[]) => Buffer.from(JSON.stringify({ user, groups, method: 'TLS' })).toString('base64url');
  const HEADERS: ReadonlyArray<readonly [string, () => Record<string, string>]> = [
    ['X-Swarm-Forwarded-Caller: bob', () => ({ 'X-Swarm-Forwarded-Caller': forwarded('bob', ['team-b']) })],
    ['X-Swarm-Forwarded-Caller: an admin', () => ({ 'X-Swarm-Forwarded-Caller': forwarded('root-admin', ['admins']) })],
    ['X-Forwarded-User / X-Forwarded-Groups', () => ({ 'X-Forwarded-User': 'bob', 'X-Forwarded-Groups': 'team-b' })],
    ['X-Remote-User / X-Remote-Group', () => ({ 'X-Remote-User': 'bob', 'X-Remote-Group': 'team-b' })],
    ['Impersonate-User / Impersonate-Group', () => ({ 'Impersonate-User': 'bob', 'Impersonate-Group': 'team-b' })],
    ['X-Forwarded-Client-Cert', () => ({ 'X-Forwarded-Client-Cert': 'Subject="CN=bob,O=team-b"' })],
  ];
  it.each(HEADERS)('%s', (name, headers) =>
    attempt('forwarded identity', name, async () => {
      const [theirs, nobodys, metrics] = await Promise.all([
        cluster.call('alice', 'GET', '/v1.41/containers/bob-db/json', undefined, headers()),
        cluster.call('alice', 'GET', `/v1.41/containers/${NOBODY}/json`, undefined, headers()),
        cluster.call('alice', 'GET', '/_swarm/metrics', undefined, headers()),
      ]);
      return {
        answer: `${theirs.status} ${theirs.text.slice(0, 80)}; metrics ${metrics.status}`,
        refused: theirs.status === 404 && metrics.status === 403,
        leaks: [
          ...compare('GET /containers/bob-db/json', http(theirs), http(nobodys), [['bob-db', NOBODY]]),
          ...(metrics.status !== 403 || !metrics.text.includes('user alice (groups team-a)')
            ? [`metrics answered ${metrics.status} ${metrics.text.slice(0, 100)}`]
            : []),
        ],
      };
    }),
  );
  it('the docker CLI sending X-Swarm-Forwarded-Caller from config.json HttpHeaders', () =>
    attempt('forwarded identity', 'CLI HttpHeaders X-Swarm-Forwarded-Caller', async () => {
      const config = join(scratch, 'docker-config');
      mkdirSync(config, { recursive: true });
      writeFileSync(
        join(config, 'config.json'),
        JSON.stringify({ HttpHeaders: { 'X-Swarm-Forwarded-Caller': forwarded('bob', ['team-b']) } }),
      );
      const env = { DOCKER_CONFIG: config };
      const [theirs, nobodys, ps] = await Promise.all([
        as('alice', ['container', 'inspect', 'bob-db'], env),
        as('alice', ['container', 'inspect', NOBODY], env),
        as('alice', ['ps', '-a', '--format', '{{.Names}}'], env),
      ]);
      return {
        answer: gist(theirs),
        refused: theirs.code !== 0 && !ps.stdout.includes('bob-db'),
        leaks: [
          ...compare('container inspect bob-db', cli(theirs), cli(nobodys), [['bob-db', NOBODY]]),
          ...(ps.stdout.includes('bob-db') ? ['ps lists bob-db'] : []),
        ],
      };
    }));
  it('(control) a manager’s certificate is believed: forwarding alice, it sees what alice sees', async () => {
    const headers = { 'X-Swarm-Forwarded-Caller': forwarded('alice', ['team-a']) };
    const [theirs, hers] = await Promise.all([
      cluster.call('manager', 'GET', '/v1.41/containers/bob-db/json', undefined, headers),
      cluster.call('manager', 'GET', '/v1.41/containers/alice-app/json', undefined, headers),
    ]);
    expect(theirs.status).toBe(404);
    expect(hers.status).toBe(200);
  });
});

describe('the web view', () => {
  const randomId = () => randomHex(64, allIds);
  it('api/containers/<bob’s ID>', () =>
    attempt('web', 'GET /swarm/ui/api/containers/<ID>', () =>
      rawSameAsNobody('GET', (r) => `/swarm/ui/api/containers/${r}`, bob.id, randomId()),
    ));
  it('api/containers/<bob’s ID prefix>', () =>
    attempt('web', 'GET /swarm/ui/api/containers/<prefix>', () =>
      rawSameAsNobody('GET', (r) => `/swarm/ui/api/containers/${r}`, bob.id.slice(0, 12), randomHex(12, allIds)),
    ));
  it('api/explain of bob’s container', () =>
    attempt('web', 'POST /swarm/ui/api/explain {container}', () =>
      rawSameAsNobody(
        'POST',
        () => '/swarm/ui/api/explain',
        bob.id,
        randomId(),
        (r) => ({ container: r }),
      ),
    ));
  it('api/explain with affinity:container==bob-db', () =>
    attempt('web', 'POST /swarm/ui/api/explain affinity', () =>
      rawSameAsNobody(
        'POST',
        () => '/swarm/ui/api/explain',
        'bob-db',
        NOBODY,
        (r) => ({ args: ['-e', `affinity:container==${r}`, 'busybox:local'] }),
      ),
    ));
  it('api/live: the first snapshot holds nothing of bob’s', () =>
    attempt('web', 'GET /swarm/ui/api/live snapshot', async () => {
      const text = await firstSnapshot('alice');
      const leaks = [
        ...bobFragments(text),
        ...(text.includes(bob.id.slice(0, 12)) || text.includes('bob-db') ? ["bob's container is in the snapshot"] : []),
      ];
      return { refused: text.includes(alice.id.slice(0, 12)) || text.includes('alice-app'), leaks };
    }));
});

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ').replace(/`/g, "'");
}

/** The web view's live stream until its first `snapshot` message. */
function firstSnapshot(person: Person): Promise<string> {
  const file = (name: string) => readFileSync(join(cluster.dir, name));
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: PORT,
        path: '/swarm/ui/api/live',
        ca: file('ca.pem'),
        cert: file(`${person}-cert.pem`),
        key: file(`${person}-key.pem`),
      },
      (res) => {
        let text = '';
        const timer = setTimeout(() => {
          req.destroy();
          resolve(text);
        }, 5000);
        res.on('data', (chunk: Buffer) => {
          text += chunk.toString();
          const start = text.indexOf('event: snapshot');
          if (start !== -1 && text.indexOf('\n\n', start) !== -1) {
            clearTimeout(timer);
            req.destroy();
            resolve(text);
          }
        });
      },
    );
    req.on('error', (error) => ((error as NodeJS.ErrnoException).code === 'ECONNRESET' ? undefined : reject(error)));
    req.end();
  });
}

itJudgedEveryEngineRequest('access-bypass', () => cluster);
