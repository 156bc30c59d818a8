import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { AuthzCall, AuthzPlugin } from '../authz-plugin/authz-plugin.mjs';
import { startSideBySide, type SideBySide } from '../authz-plugin/side-by-side.js';
import type { CliResult } from './api-support.js';

// Indexes 178-179 and ports 28500-28519 belong to this file

/*
 * Issue 42's hole 9, side by side: the same recording AuthZ plugin (test/authz-plugin) in front of
 * a real dockerd 20.10 (Debian's, with the CVE-2024-41110 fix: engine 178) and of a swarm manager
 * (port 28500, over engine 179). Each request is written by hand, in one framing or another
 * (chunked, `Chunked`, `gzip, chunked`, Content-Length 0 beside chunked, HTTP/1.0, Content-Types
 * with parameters, in other case, missing or not JSON, bodies about 1 MiB), a privileged create
 * the plugin denies whenever it sees the body. What each plugin got (body, headers) and what each
 * client got must agree; where swarm deliberately differs (it refuses a request dockerd 20.10
 * lets through unseen, or refuses before asking the plugin) the test says so case by case. No
 * privileged container may ever be made through swarm.
 */

const run = promisify(execFile);
const NAME = 'swarm-e2e-authz-framings';
const PORT = 28500;
const MiB = 1024 * 1024;

let dir: string;
let sides: SideBySide | undefined;
let enginePlugin: AuthzPlugin;
let swarmPlugin: AuthzPlugin;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'swarm-authz-framings-'));
  // named twice: dockerd keeps a name once (pkg/authorization NewPlugins), and so must swarm
  const twice = ['--authorization-plugin', NAME];
  sides = await startSideBySide({ name: NAME, dir, engineIndex: 178, backendIndex: 179, port: PORT, managerArgs: twice });
  ({ enginePlugin, swarmPlugin } = sides);
}, 180_000);

afterAll(async () => {
  await sides?.stop();
  rmSync(dir, { recursive: true, force: true });
});

interface Side {
  readonly plugin: () => AuthzPlugin;
  /** Where raw requests go, and the socket of the engine that runs what is created. */
  readonly address: () => { host: string; port: number };
  readonly engineSocket: () => string;
  readonly cliHost: () => string;
}

const DOCKERD: Side = {
  plugin: () => enginePlugin,
  address: () => ({ host: '127.0.0.179', port: 2375 }),
  engineSocket: () => sides!.engine.socket,
  cliHost: () => sides!.engine.host,
};
const SWARM: Side = {
  plugin: () => swarmPlugin,
  address: () => ({ host: '127.0.0.1', port: PORT }),
  engineSocket: () => sides!.backend.engines[0]!.socket,
  cliHost: () => sides!.manager.host,
};

/** Writes `bytes` on a new connection and reads until the server closes it (every request says `Connection: close`). */
function exchange(side: Side, bytes: Buffer): Promise<string> {
  const { host, port } = side.address();
  return new Promise((resolve) => {
    const socket = connect(port, host);
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => socket.destroy(), 15_000);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('latin1'));
    });
    socket.write(bytes);
  });
}

interface Answer {
  readonly status: number;
  /** The JSON answer's message, or the text of a plain one. */
  readonly message: string;
}

function answerOf(text: string): Answer {
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1] ?? 0);
  const body = text.slice(text.indexOf('\r\n\r\n') + 4).trim();
  try {
    return { status, message: (JSON.parse(body) as { message?: string }).message ?? '' };
  } catch {
    return { status, message: body };
  }
}

/** How many privileged containers the side's engine holds. */
async function privileged(side: Side): Promise<number> {
  const host = ['-H', `unix://${side.engineSocket()}`];
  const ids = (await run('docker', [...host, 'ps', '-aq'])).stdout.split('\n').filter(Boolean);
  if (ids.length === 0) return 0;
  const flags = (await run('docker', [...host, 'inspect', '--format', '{{.HostConfig.Privileged}}', ...ids])).stdout;
  return flags.split('\n').filter((flag) => flag === 'true').length;
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

interface Sent {
  readonly answer: Answer;
  readonly requests: AuthzCall[];
  /** Privileged containers this request made. */
  readonly made: number;
}

async function send(side: Side, bytes: Buffer): Promise<Sent> {
  const before = await privileged(side);
  side.plugin().clear();
  const answer = answerOf(await exchange(side, bytes));
  await settle();
  const requests = side
    .plugin()
    .authzCalls()
    .filter((call) => call.phase === 'request');
  return { answer, requests, made: (await privileged(side)) - before };
}

const PRIVILEGED = Buffer.from(JSON.stringify({ Image: 'busybox:local', Cmd: ['true'], HostConfig: { Privileged: true } }));

/** The privileged create body padded with spaces to `size` bytes: still the same JSON. */
function padded(size: number): Buffer {
  return Buffer.concat([PRIVILEGED.subarray(0, -1), Buffer.alloc(size - PRIVILEGED.length, ' '), Buffer.from('}')]);
}

function chunkedBody(body: Buffer): Buffer {
  // two chunks, so the framing is really used
  const half = Math.floor(body.length / 2);
  const chunk = (part: Buffer) => Buffer.concat([Buffer.from(`${part.length.toString(16)}\r\n`), part, Buffer.from('\r\n')]);
  return Buffer.concat([chunk(body.subarray(0, half)), chunk(body.subarray(half)), Buffer.from('0\r\n\r\n')]);
}

interface Framing {
  readonly name: string;
  readonly headers: readonly string[];
  readonly body?: Buffer;
  readonly uri?: string;
  readonly version?: string;
  /** The body goes chunked (a Transfer-Encoding header is among `headers`). */
  readonly chunked?: boolean;
}

function requestBytes(framing: Framing): Buffer {
  const body = framing.body ?? PRIVILEGED;
  const head = [
    `POST ${framing.uri ?? '/v1.41/containers/create'} ${framing.version ?? 'HTTP/1.1'}`,
    'Host: docker',
    'Connection: close',
    ...framing.headers,
    ...(framing.chunked ? [] : [`Content-Length: ${body.length}`]),
  ];
  return Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`), framing.chunked ? chunkedBody(body) : body]);
}

const JSON_TYPE = 'Content-Type: application/json';
const CHUNKED = 'Transfer-Encoding: chunked';
const DENIED = `authorization denied by plugin ${NAME}: no privileged containers`;

/** The plugin saw the body and denied it on both sides: same body, same headers, same 403. */
const SEEN: Framing[] = [
  { name: 'a Content-Length', headers: [JSON_TYPE] },
  { name: 'chunked (hole 9)', headers: [JSON_TYPE, CHUNKED], chunked: true },
  { name: 'chunked, spelt Chunked', headers: [JSON_TYPE, 'Transfer-Encoding: Chunked'], chunked: true },
  { name: 'a Content-Type with parameters in another case', headers: ['Content-Type: Application/JSON; charset=UTF8'] },
  {
    name: 'chunked with a Content-Type in another case',
    headers: ['Content-Type: APPLICATION/json;charset=utf-8', CHUNKED],
    chunked: true,
  },
  { name: 'a Content-Type with a trailing semicolon', headers: ['Content-Type: application/json;'] },
  { name: 'a query ending in /auth', headers: [JSON_TYPE], uri: '/v1.41/containers/create?x=/auth' },
  { name: 'chunked, a query ending in /auth', headers: [JSON_TYPE, CHUNKED], uri: '/v1.41/containers/create?x=/auth', chunked: true },
  // Go's plugins get a repeated header's last value, and Header.Get reads the first
  { name: 'repeated headers', headers: [JSON_TYPE, 'Content-Type: text/plain', 'X-Repeated: one', 'X-Repeated: two'] },
  { name: '1 MiB - 1 with a Content-Length', headers: [JSON_TYPE], body: padded(MiB - 1) },
  { name: '1 MiB - 1 chunked', headers: [JSON_TYPE, CHUNKED], body: padded(MiB - 1), chunked: true },
];

/** Not JSON to dockerd: its plugin gets no body and its handler refuses the body (CheckForJSON). */
const NOT_JSON: Array<Framing & { readonly type: string }> = [
  { name: 'no Content-Type', headers: [], type: '' },
  { name: 'no Content-Type, chunked', headers: [CHUNKED], chunked: true, type: '' },
  { name: 'text/plain', headers: ['Content-Type: text/plain'], type: 'text/plain' },
  { name: 'a parameter Go cannot parse', headers: ['Content-Type: application/json; charset'], type: 'application/json; charset' },
];

/**
 * Bodies of 1 MiB and more: dockerd 20.10 asks its plugin without the body and runs the request.
 * Current moby (25.0.16, 28.x, 29.3.1 and later) shows its plugin up to 1 MiB and refuses a larger
 * body; so does swarm.
 */
const LARGE: Array<Framing & { readonly swarm: Answer }> = [
  { name: '1 MiB with a Content-Length', headers: [JSON_TYPE], body: padded(MiB), swarm: { status: 403, message: DENIED } },
  { name: '1 MiB chunked', headers: [JSON_TYPE, CHUNKED], body: padded(MiB), chunked: true, swarm: { status: 403, message: DENIED } },
  ...[
    { name: '1 MiB + 1 with a Content-Length', headers: [JSON_TYPE], body: padded(MiB + 1) },
    { name: '1 MiB + 1 chunked', headers: [JSON_TYPE, CHUNKED], body: padded(MiB + 1), chunked: true },
  ].map((framing) => ({
    ...framing,
    swarm: { status: 500, message: `request body too large for authorization plugin: size exceeds ${MiB} bytes` },
  })),
];

async function sideBySide(framing: Framing): Promise<[dockerd: Sent, swarm: Sent]> {
  const bytes = requestBytes(framing);
  return [await send(DOCKERD, bytes), await send(SWARM, bytes)];
}

it('both activate the plugin once, when they start (/Plugin.Activate before any request), though swarm was given it twice', () => {
  for (const plugin of [enginePlugin, swarmPlugin]) {
    expect(plugin.counts['/Plugin.Activate']).toBe(1);
    expect(plugin.calls[0]?.path).toBe('/Plugin.Activate');
  }
});

describe('a privileged create in every framing, side by side with dockerd 20.10 and one AuthZ plugin that denies it when it sees it', () => {
  beforeAll(() => {
    for (const side of [DOCKERD, SWARM])
      side.plugin().setRules([{ method: 'POST', body: /"Privileged":true/, msg: 'no privileged containers' }]);
  });
  afterAll(() => {
    for (const side of [DOCKERD, SWARM]) side.plugin().setRules([]);
  });

  it.each(SEEN.map((framing) => [framing.name, framing] as const))(
    '%s: the same body and headers reach both plugins, both deny',
    async (_, framing) => {
      const [dockerd, swarm] = await sideBySide(framing);
      expect(dockerd.answer).toEqual({ status: 403, message: DENIED });
      expect(swarm.answer).toEqual(dockerd.answer);
      const seen = (sent: Sent) =>
        sent.requests.map((call) => ({ body: call.RequestBody, headers: call.RequestHeaders, uri: call.RequestUri }));
      expect(seen(swarm)).toEqual(seen(dockerd));
      expect(Buffer.from(swarm.requests[0]?.RequestBody ?? '', 'base64').equals(framing.body ?? PRIVILEGED)).toBe(true);
      expect([dockerd.made, swarm.made]).toEqual([0, 0]);
    },
  );

  it.each(NOT_JSON.map((framing) => [framing.name, framing] as const))(
    "%s: dockerd's 400 (its plugin got no body, so swarm's engine never gets that body either)",
    async (_, framing) => {
      const [dockerd, swarm] = await sideBySide(framing);
      const refusal = { status: 400, message: `Content-Type specified (${framing.type}) must be 'application/json'` };
      expect(dockerd.answer).toEqual(refusal);
      expect(dockerd.requests.map((call) => call.RequestBody)).toEqual([undefined]);
      expect(swarm.answer).toEqual(refusal);
      // swarm refuses before asking its plugin, dockerd in the handler after asking it
      expect(swarm.requests).toEqual([]);
      expect([dockerd.made, swarm.made]).toEqual([0, 0]);
    },
  );

  it.each(LARGE.map((framing) => [framing.name, framing] as const))(
    '%s: dockerd 20.10 runs it unseen by its plugin; swarm does as current moby does',
    async (_, framing) => {
      const [dockerd, swarm] = await sideBySide(framing);
      expect([dockerd.answer.status, dockerd.requests.map((call) => call.RequestBody), dockerd.made]).toEqual([201, [undefined], 1]);
      expect(swarm.answer).toEqual(framing.swarm);
      const shown = swarm.requests.map((call) => Buffer.from(call.RequestBody ?? '', 'base64').equals(framing.body!));
      expect(shown).toEqual(framing.swarm.status === 403 ? [true] : []);
      expect(swarm.made).toBe(0);
    },
  );

  it("Transfer-Encoding other than chunked: Go's 501 before any plugin is asked, on both", async () => {
    const [dockerd, swarm] = await sideBySide({
      name: 'gzip, chunked',
      headers: [JSON_TYPE, 'Transfer-Encoding: gzip, chunked'],
      chunked: true,
    });
    expect(dockerd.answer).toEqual({ status: 501, message: 'Unsupported transfer encoding' });
    expect(swarm.answer).toEqual(dockerd.answer);
    expect([dockerd.requests, swarm.requests]).toEqual([[], []]);
    expect([dockerd.made, swarm.made]).toEqual([0, 0]);
  });

  it('HTTP/1.0 with Transfer-Encoding: chunked: the body is empty to dockerd and to swarm, so the plugin and the engine agree', async () => {
    const [dockerd, swarm] = await sideBySide({ name: 'HTTP/1.0', headers: [JSON_TYPE, CHUNKED], chunked: true, version: 'HTTP/1.0' });
    expect(dockerd.requests.map((call) => call.RequestBody)).toEqual([undefined]);
    expect(swarm.requests.map((call) => call.RequestBody)).toEqual([undefined]);
    expect(dockerd.answer.status).toBeGreaterThanOrEqual(400);
    expect(swarm.answer.status).toBeGreaterThanOrEqual(400);
    expect([dockerd.made, swarm.made]).toEqual([0, 0]);
  });

  it('Content-Length: 0 beside a chunked body: dockerd reads the chunks (and its plugin denies them); Node.js refuses the request', async () => {
    const [dockerd, swarm] = await sideBySide({ name: 'both', headers: [JSON_TYPE, 'Content-Length: 0', CHUNKED], chunked: true });
    expect(dockerd.answer).toEqual({ status: 403, message: DENIED });
    expect(swarm.answer.status).toBe(400);
    expect(swarm.requests).toEqual([]);
    expect([dockerd.made, swarm.made]).toEqual([0, 0]);
  });
});

const CLI_TIMEOUT_MS = 20_000;

function cli(side: Side, args: string[]): Promise<CliResult> {
  return new Promise((resolve) => {
    const env: NodeJS.ProcessEnv = { ...process.env, DOCKER_CONFIG: dir };
    delete env.DOCKER_API_VERSION;
    const child = spawn('docker', ['-H', side.cliHost(), ...args], { env, timeout: CLI_TIMEOUT_MS, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

/** dockerd's middlewares' headers, on every answer of dockerd's and only on some of swarm's own. */
const ENGINE_ONLY_HEADERS = new Set(['Api-Version', 'Docker-Experimental', 'Ostype', 'Server']);

/** Each AuthZRes of a command: method, URI (IDs left out), status, header names. */
async function responses(side: Side, args: string[]): Promise<{ result: CliResult; seen: unknown[] }> {
  side.plugin().clear();
  const result = await cli(side, args);
  await settle();
  const seen = side
    .plugin()
    .authzCalls()
    .filter((call) => call.phase === 'response' && !call.RequestUri?.endsWith('/_ping'))
    .map((call) => ({
      method: call.RequestMethod,
      uri: call.RequestUri?.replace(/[0-9a-f]{64}/g, '<id>'),
      status: call.ResponseStatusCode,
      headers: Object.keys(call.ResponseHeaders ?? {}).filter((name) => !ENGINE_ONLY_HEADERS.has(name)),
    }));
  return { result, seen };
}

describe('AuthZRes of cp and stop: ResponseStatusCode where dockerd has it', () => {
  const upload = join(tmpdir(), `swarm-authz-framings-upload-${process.pid}`);
  beforeAll(async () => {
    writeFileSync(upload, 'hello\n');
    for (const side of [DOCKERD, SWARM]) {
      expect((await cli(side, ['run', '-d', '--name', 'framings-cp', 'busybox:local', 'sleep', '300'])).code).toBe(0);
    }
  });
  afterAll(async () => {
    rmSync(upload, { force: true });
    for (const side of [DOCKERD, SWARM]) await cli(side, ['rm', '-f', 'framings-cp']);
  });

  it.each([
    ['cp into a container (HEAD and PUT archive: dockerd writes no status)', ['cp', upload, 'framings-cp:/tmp/']],
    ['stop (a 204)', ['stop', '-t', '1', 'framings-cp']],
  ])('%s', async (_, args) => {
    const dockerd = await responses(DOCKERD, args);
    const swarm = await responses(SWARM, args);
    expect([swarm.result.code, swarm.result.stderr]).toEqual([dockerd.result.code, dockerd.result.stderr]);
    expect(dockerd.seen.length).toBeGreaterThan(0);
    expect(swarm.seen).toEqual(dockerd.seen);
  });

  it('cp out of a container (GET archive): no status on either side', async () => {
    await cli(DOCKERD, ['start', 'framings-cp']);
    await cli(SWARM, ['start', 'framings-cp']);
    const args = ['cp', 'framings-cp:/etc/hostname', join(dir, 'copied')];
    const dockerd = await responses(DOCKERD, args);
    const swarm = await responses(SWARM, args);
    expect([swarm.result.code, dockerd.result.code]).toEqual([0, 0]);
    const statuses = (seen: unknown[]) => seen.map((call) => (call as { status?: number }).status);
    expect(statuses(swarm.seen)).toEqual(statuses(dockerd.seen));
  });
});

describe('a denied hijack (attach with Upgrade), as raw bytes', () => {
  it('answers what dockerd answers: the 403 with the plugin text', async () => {
    for (const side of [DOCKERD, SWARM]) {
      expect((await cli(side, ['run', '-d', '--name', 'framings-attach', 'busybox:local', 'sleep', '300'])).code).toBe(0);
      side.plugin().setRules([{ uri: /\/attach/, msg: 'no attaching' }]);
    }
    try {
      const bytes = Buffer.from(
        'POST /v1.41/containers/framings-attach/attach?stream=1&stdout=1 HTTP/1.1\r\nHost: docker\r\nConnection: Upgrade\r\nUpgrade: tcp\r\n\r\n',
      );
      const [dockerd, swarm] = [answerOf(await exchangeFirstAnswer(DOCKERD, bytes)), answerOf(await exchangeFirstAnswer(SWARM, bytes))];
      expect(dockerd).toEqual({ status: 403, message: `authorization denied by plugin ${NAME}: no attaching` });
      expect(swarm).toEqual(dockerd);
    } finally {
      for (const side of [DOCKERD, SWARM]) {
        side.plugin().setRules([]);
        await cli(side, ['rm', '-f', 'framings-attach']);
      }
    }
  });
});

/** Reads one answer of a kept-alive connection: until its head says it is complete, or the server closes. */
function exchangeFirstAnswer(side: Side, bytes: Buffer): Promise<string> {
  const { host, port } = side.address();
  return new Promise((resolve) => {
    const socket = connect(port, host);
    let text = '';
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(text);
    };
    const timer = setTimeout(done, 5000);
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
      const headEnd = text.indexOf('\r\n\r\n');
      const length = /\r\ncontent-length: *(\d+)/i.exec(text)?.[1];
      if (headEnd !== -1 && length !== undefined && text.length >= headEnd + 4 + Number(length)) done();
    });
    socket.on('error', () => undefined);
    socket.on('close', done);
    socket.write(bytes);
  });
}

const SEED = Number(process.env.SWARM_FRAMINGS_SEED ?? 42);
const GENERATED = 60;

// weighted towards what reaches the plugin: the refusals need fewer draws to be covered
const CONTENT_TYPES = [
  'application/json',
  'application/json',
  'application/json',
  'Application/JSON; charset=utf-8',
  'application/json;',
  'application/json; charset',
  'application/json; a=1; a=2',
  'application/json-patch+json',
  'text/plain',
  'application/x-www-form-urlencoded',
  undefined,
];
const CODINGS = [
  'length',
  'length',
  'chunked',
  'chunked',
  'Chunked',
  'chunked in 1-byte chunks',
  'gzip, chunked',
  'HTTP/1.0 chunked',
] as const;
const SUFFIXES = ['', '', '?x=/auth', '?x=%2Fauth'];

interface Generated {
  readonly label: string;
  readonly bytes: Buffer;
  readonly body: Buffer;
  readonly privileged: boolean;
}

const generatedRequest = (target: string) =>
  fc
    .record({
      exec: fc.boolean(),
      privileged: fc.boolean(),
      size: fc.constantFrom('small', 'small', 'small', MiB - 1, MiB + 1),
      type: fc.constantFrom(...CONTENT_TYPES),
      coding: fc.constantFrom(...CODINGS),
      suffix: fc.constantFrom(...SUFFIXES),
    })
    .map(({ exec, privileged, size, type, coding, suffix }): Generated => {
      const fields = exec
        ? { Cmd: ['true'], Privileged: privileged }
        : { Image: 'busybox:local', Cmd: ['true'], HostConfig: { Privileged: privileged } };
      const plain = Buffer.from(JSON.stringify(fields));
      const body =
        size === 'small' ? plain : Buffer.concat([plain.subarray(0, -1), Buffer.alloc(size - plain.length, ' '), Buffer.from('}')]);
      const uri = `${exec ? `/v1.41/containers/${target}/exec` : '/v1.41/containers/create'}${suffix}`;
      const head = [
        `POST ${uri} ${coding === 'HTTP/1.0 chunked' ? 'HTTP/1.0' : 'HTTP/1.1'}`,
        'Host: docker',
        'Connection: close',
        ...(type === undefined ? [] : [`Content-Type: ${type}`]),
      ];
      let framed = body;
      if (coding === 'length') head.push(`Content-Length: ${body.length}`);
      else {
        head.push(`Transfer-Encoding: ${coding === 'Chunked' || coding === 'gzip, chunked' ? coding : 'chunked'}`);
        const bytewise = coding === 'chunked in 1-byte chunks' && body.length < 1024;
        framed = bytewise
          ? Buffer.concat([
              ...[...body].map((byte) => Buffer.from(`1\r\n${String.fromCharCode(byte)}\r\n`, 'latin1')),
              Buffer.from('0\r\n\r\n'),
            ])
          : chunkedBody(body);
      }
      const label = `${exec ? 'exec' : 'create'} privileged=${privileged} ${body.length} B, ${coding}, ${type ?? 'no type'}, ${uri}`;
      return { label, bytes: Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`), framed]), body, privileged };
    });

describe(`generated framings against swarm (seed ${SEED}): nothing runs that the plugin did not see`, () => {
  const TARGET = 'framings-exec-target';
  beforeAll(async () => {
    expect((await cli(SWARM, ['run', '-d', '--name', TARGET, 'busybox:local', 'sleep', '600'])).code).toBe(0);
    swarmPlugin.setRules([{ method: 'POST', body: /"Privileged":true/, msg: 'no privileged containers' }]);
  });
  afterAll(async () => {
    swarmPlugin.setRules([]);
    const host = ['-H', `unix://${SWARM.engineSocket()}`];
    const ids = (await run('docker', [...host, 'ps', '-aq'])).stdout.split('\n').filter(Boolean);
    if (ids.length > 0) await run('docker', [...host, 'rm', '-f', ...ids]);
  });

  it(`${GENERATED} requests: every one that ran (2xx) had its exact body shown to the plugin; no privileged container or exec ran`, async () => {
    const outcomes = { ran: 0, denied: 0, refused: 0 };
    const violations: string[] = [];
    for (const request of fc.sample(generatedRequest(TARGET), { seed: SEED, numRuns: GENERATED })) {
      const sent = await send(SWARM, request.bytes);
      const seen = sent.requests.map((call) => Buffer.from(call.RequestBody ?? '', 'base64'));
      if (sent.answer.status >= 200 && sent.answer.status < 300) {
        outcomes.ran++;
        if (request.privileged) violations.push(`ran privileged: ${request.label}`);
        if (seen.length !== 1 || !seen[0]!.equals(request.body)) violations.push(`ran unseen: ${request.label}`);
      } else if (sent.answer.status === 403) outcomes.denied++;
      else outcomes.refused++;
      if (sent.made > 0) violations.push(`made a privileged container: ${request.label}`);
    }
    expect(violations).toEqual([]);
    // the generator reaches all three outcomes
    expect(Object.values(outcomes).every((count) => count > 0)).toBe(true);
  }, 300_000);
});
