import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuthzCall, AuthzPlugin, DenyRule } from '../authz-plugin/authz-plugin.mjs';
import { startSideBySide, type SideBySide } from '../authz-plugin/side-by-side.js';
import { startEngineWithAuthz, type AuthzEngine } from '../authz-plugin/dockerd-with-authz.js';
import { startTestbed, type Testbed } from '../harness/engines.js';
import { makeCertificates } from '../harness/certificates.js';
import { startManager, type InfoAnswer, type Manager } from '../harness/manager.js';
import type { CliResult } from './api-support.js';

/*
 * The same engine authorization plugin (test/authz-plugin) in front of a real dockerd 20.10
 * (`--authorization-plugin`, engine 203) and, as a second instance, in front of a swarm manager
 * (`swarm manage --authorization-plugin`, over engine 204). The same docker CLI commands run
 * against both; each plugin instance records what it was asked, and the two records must match
 * once normalised (IDs, hosts, API version prefix), as must the CLI's errors for a denial.
 *
 * Both sides find the plugin by the same name through a `.spec` file: dockerd in its own
 * /etc/docker/plugins (testbed engines bind-mount their own /etc/docker), the manager in the
 * host's. Engines 203-204 (127.0.0.204-205), manager port 27001; over TLS engines 205-206 and port 27002.
 */

const run = promisify(execFile);
const NAME = 'swarm-e2e-authz';
const MANAGER_PORT = 27001;
const TLS_MANAGER_PORT = 27002;
const SWARM_FIRST = 204;

let dir: string;
let sides: SideBySide | undefined;
let enginePlugin: AuthzPlugin;
let swarmPlugin: AuthzPlugin;
let engine: AuthzEngine | undefined;
let manager: Manager | undefined;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'swarm-authz-e2e-'));
  sides = await startSideBySide({ name: NAME, dir, engineIndex: 203, backendIndex: SWARM_FIRST, port: MANAGER_PORT });
  ({ enginePlugin, swarmPlugin, engine, manager } = sides);
}, 180_000);

afterAll(async () => {
  await sides?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** What a call says once IDs, the API version prefix and values that differ by host are left out. */
interface Seen {
  phase: string;
  method?: string;
  uri?: string;
  user?: string;
  body?: unknown;
  headers?: Record<string, string>;
  status?: number;
  responseBody?: boolean;
  responseHeaders?: string[];
}

/**
 * dockerd's version and experimental middlewares put these on every answer; swarm's own answers
 * (as Swarm classic's) carry them on /_ping only, and never `Server`. AuthZRes's ResponseHeaders
 * follow the answer the client got, so they differ by these names: a difference of the servers'
 * answers, not of the plugin protocol, left out of the comparison.
 */
const ENGINE_ONLY_HEADERS = new Set(['Api-Version', 'Docker-Experimental', 'Ostype', 'Server']);

const ID = /[0-9a-f]{64}|[0-9a-f]{12}/g;

function normaliseUri(uri: string | undefined): string | undefined {
  return uri?.replace(/^\/v[0-9.]+\//, '/v*/').replace(ID, '<id>');
}

function decode(body: string | undefined): unknown {
  return body === undefined ? undefined : JSON.parse(Buffer.from(body, 'base64').toString('utf8'));
}

function seen(call: AuthzCall): Seen {
  const out: Seen = { phase: call.phase, method: call.RequestMethod, uri: normaliseUri(call.RequestUri), user: call.User };
  if (call.RequestBody !== undefined) out.body = decode(call.RequestBody);
  // the same CLI sends the same headers to both (Host, which differs, is not sent by dockerd either)
  if (call.RequestHeaders !== undefined) out.headers = call.RequestHeaders;
  if (call.phase === 'response') {
    out.status = call.ResponseStatusCode;
    out.responseBody = call.ResponseBody !== undefined;
    out.responseHeaders = Object.keys(call.ResponseHeaders ?? {}).filter((name) => !ENGINE_ONLY_HEADERS.has(name));
  }
  return out;
}

const CLI_TIMEOUT_MS = 20_000;

/** The docker CLI, ended after CLI_TIMEOUT_MS: a command that hangs on one side fails alone. */
function cli(host: string, args: string[]): Promise<CliResult> {
  return new Promise((resolve) => {
    const env: NodeJS.ProcessEnv = { ...process.env, DOCKER_CONFIG: dir };
    delete env.DOCKER_API_VERSION;
    const child = spawn('docker', ['-H', host, ...args], {
      env,
      timeout: CLI_TIMEOUT_MS,
      killSignal: 'SIGKILL',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code, signal) =>
      resolve({ code: code ?? 1, stdout, stderr: signal ? `${stderr}[killed after ${CLI_TIMEOUT_MS} ms]` : stderr }),
    );
  });
}

interface BothResult {
  engine: CliResult;
  swarm: CliResult;
  engineSaw: Seen[];
  swarmSaw: Seen[];
  /** The AuthZ calls as each plugin got them. */
  engineCalls: AuthzCall[];
  swarmCalls: AuthzCall[];
}

/** Runs the same CLI command against both sides and returns each side's result and what its plugin saw. */
async function both(args: string[], hosts?: { engine: string; swarm: string }): Promise<BothResult> {
  enginePlugin.clear();
  swarmPlugin.clear();
  const engineResult = await cli(hosts?.engine ?? engine!.host, args);
  const swarmResult = await cli(hosts?.swarm ?? manager!.host, args);
  // A hijacked connection's AuthZRes follows its end, which may come just after the CLI exits: on
  // either side, calls are read once no new one came for a moment.
  await Promise.all([settledCalls(enginePlugin), settledCalls(swarmPlugin)]);
  const [engineCalls, swarmCalls] = [enginePlugin.authzCalls(), swarmPlugin.authzCalls()];
  return {
    engine: engineResult,
    swarm: swarmResult,
    engineSaw: engineCalls.map(seen),
    swarmSaw: swarmCalls.map(seen),
    engineCalls,
    swarmCalls,
  };
}

async function settledCalls(plugin: { authzCalls(): unknown[] }): Promise<void> {
  let count = -1;
  for (let round = 0; round < 20 && count !== plugin.authzCalls().length; round++) {
    count = plugin.authzCalls().length;
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
}

/** /info as the docker CLI reads it (classic's SystemStatus rows included), for startManager's readiness wait. */
async function infoThroughCli(host: string, flags: string[]): Promise<InfoAnswer | undefined> {
  const result = await cli(host, [...flags, 'info', '--format', '{{json .SystemStatus}}']);
  return result.code === 0 ? { SystemStatus: JSON.parse(result.stdout) as InfoAnswer['SystemStatus'] } : undefined;
}

function setRules(rules: DenyRule[]): void {
  enginePlugin.setRules(rules);
  swarmPlugin.setRules(rules);
}

/**
 * The AuthZReq calls, sorted: the CLI sends some in parallel (`rm` of several containers), so
 * their order is the CLI's scheduling, not the server's.
 */
const sorted = (calls: Seen[]) => [...calls].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
const requests = (calls: Seen[]) => sorted(calls.filter((call) => call.phase === 'request'));

/**
 * The AuthZRes calls. A streamed answer (`wait`, `logs`) gets one too, after it ended, with no
 * status, headers or body: dockerd's response modifier flushed them to the client while streaming,
 * and swarm's host reviews the answers it let stream out without their body. A hijacked one
 * (attach) gets none from swarm; these commands make none.
 */
const responses = (calls: Seen[]) => sorted(calls.filter((call) => call.phase === 'response' && askedHere(calls, call)));
/** An AuthZRes of a request this command made (a stream a previous command left open may end now). */
const askedHere = (calls: Seen[], response: Seen) =>
  calls.some((call) => call.phase === 'request' && call.method === response.method && call.uri === response.uri);

const COMMANDS: string[][] = [
  ['ps'],
  ['run', '-d', '--name', 'authz-web', '-l', 'team=a', 'busybox:local', 'sleep', '300'],
  ['inspect', 'authz-web'],
  ['logs', 'authz-web'],
  ['create', '--name', 'authz-body', '-e', 'A=<b>&c', '-m', '32m', 'busybox:local', 'true'],
  ['rm', '-f', 'authz-web', 'authz-body'],
  ['inspect', 'authz-missing'],
  // answers over dockerd's 64 KiB response buffer: flushed before AuthZRes, so no status, headers or body
  ['create', '--name', 'authz-big', '-l', `big=${'x'.repeat(70_000)}`, 'busybox:local', 'true'],
  ['inspect', 'authz-big'],
  ['ps', '-a'],
  ['rm', 'authz-big'],
  // exec: a JSON create body, then a hijacked start that carries a JSON body too. dockerd sends that
  // body in AuthZReq (JSON, with a length) and, when the hijacked connection closes, an AuthZRes with
  // the middlewares' headers only (moby never skips AuthZRes for a hijacked answer)
  ['create', '--name', 'authz-exec', 'busybox:local', 'sleep', '300'],
  ['start', 'authz-exec'],
  ['exec', 'authz-exec', 'echo', 'hi'],
  ['rm', '-f', 'authz-exec'],
];

describe('the same AuthZ plugin in front of dockerd 20.10 and of swarm', () => {
  // in order: each command works on what the one before made
  describe.each(COMMANDS.map((args) => [args.join(' ').slice(0, 80), args] as const))('docker %s', (_, args) => {
    let result: BothResult;

    it('gets the same AuthZReq calls (method, URI, user, body, headers) and the CLI the same answer', async () => {
      result = await both(args);
      expect(requests(result.swarmSaw)).toEqual(requests(result.engineSaw));
      expect([result.swarm.code, result.swarm.stderr]).toEqual([result.engine.code, result.engine.stderr]);
      if (args.includes('authz-body') && args[0] === 'create') {
        const create = result.engineSaw.find((call) => call.phase === 'request' && call.uri?.startsWith('/v*/containers/create'));
        expect(create?.body).toMatchObject({ Image: 'busybox:local', Env: ['A=<b>&c'], HostConfig: { Memory: 32 * 1024 * 1024 } });
      }
    });

    it('gets the same AuthZRes calls (status, whether a body came, header names)', () => {
      expect(responses(result.swarmSaw)).toEqual(responses(result.engineSaw));
      if (args[0] === 'inspect' && args[1] === 'authz-big') {
        // the emulated flush: dockerd's own record of the answer has no status, headers or body
        const answer = responses(result.engineSaw).find((call) => call.uri?.includes('/containers/authz-big/json'));
        expect(answer).toMatchObject({ status: undefined, responseBody: false, responseHeaders: [] });
      }
    });
  });

  it('a denial reaches the docker CLI as the engine says it: authorization denied by plugin NAME: MSG', async () => {
    const kept = await both(['create', '--name', 'authz-keep', 'busybox:local', 'true']);
    expect([kept.engine.code, kept.swarm.code]).toEqual([0, 0]);
    setRules([
      { method: 'DELETE', uri: /\/containers\//, msg: 'removing containers is not allowed' },
      { method: 'POST', uri: /\/containers\/create/, msg: 'no new containers today' },
    ]);
    try {
      const removal = await both(['rm', '-f', 'authz-keep']);
      expect(removal.engine.stderr.trim()).toBe(
        `Error response from daemon: authorization denied by plugin ${NAME}: removing containers is not allowed`,
      );
      expect([removal.swarm.code, removal.swarm.stderr]).toEqual([removal.engine.code, removal.engine.stderr]);
      const creation = await both(['run', '-d', 'busybox:local', 'true']);
      expect(creation.engine.stderr).toContain(`authorization denied by plugin ${NAME}: no new containers today`);
      expect([creation.swarm.code, creation.swarm.stderr]).toEqual([creation.engine.code, creation.engine.stderr]);
      expect(requests(creation.swarmSaw)).toEqual(requests(creation.engineSaw));
    } finally {
      setRules([]);
    }
  });

  it('a denial of the answer (AuthZRes) replaces it with the same error', async () => {
    setRules([{ phase: 'response', method: 'GET', uri: /\/containers\/json/, msg: 'this list is not for you' }]);
    try {
      const listing = await both(['ps', '-a']);
      expect(listing.engine.stderr.trim()).toBe(
        `Error response from daemon: authorization denied by plugin ${NAME}: this list is not for you`,
      );
      expect([listing.swarm.code, listing.swarm.stdout, listing.swarm.stderr]).toEqual([
        listing.engine.code,
        listing.engine.stdout,
        listing.engine.stderr,
      ]);
    } finally {
      setRules([]);
    }
  });

  it("a plugin that fails gives the engine's 500 text: plugin NAME failed with error: ...", async () => {
    setRules([{ method: 'GET', uri: /\/containers\/json/, fail: 'the policy engine is down' }]);
    try {
      const listing = await both(['ps', '-a']);
      expect(listing.engine.stderr.trim()).toBe(
        `Error response from daemon: plugin ${NAME} failed with error: AuthZPlugin.AuthZReq: the policy engine is down`,
      );
      expect([listing.swarm.code, listing.swarm.stderr]).toEqual([listing.engine.code, listing.engine.stderr]);
    } finally {
      setRules([]);
    }
  });

  describe('over TLS (engines 205-206, port 27002)', () => {
    let certs: string;
    let tlsEngine: AuthzEngine | undefined;
    let tlsBackend: Testbed | undefined;
    let tlsManager: Manager | undefined;
    const file = (name: string) => join(certs, name);
    const clientFlags = () => [
      '--tlsverify',
      '--tlscacert',
      file('ca.pem'),
      '--tlscert',
      file('alice-cert.pem'),
      '--tlskey',
      file('alice-key.pem'),
    ];

    beforeAll(async () => {
      certs = join(dir, 'certs');
      mkdirSync(certs);
      await makeCertificates(certs, {
        ca: '/CN=swarm-authz-e2e-ca',
        certificates: [
          {
            name: 'server',
            subject: '/CN=127.0.0.1',
            ips: ['127.0.0.1', '127.0.0.206', '127.0.0.207'],
            usage: ['serverAuth', 'clientAuth'],
          },
          { name: 'alice', subject: '/CN=alice/O=dev', usage: ['clientAuth'] },
        ],
      });
      tlsBackend = await startTestbed({ first: 206, count: 1, tlsDir: certs });
      tlsEngine = await startEngineWithAuthz(205, NAME, join(dir, 'engine-side.sock'), { tlsDir: certs });
      const rootfs = `${process.env.SWARM_TESTBED_DIR ?? '/tmp/swarm-testbed'}/busybox-rootfs.tar`;
      await run('docker', ['-H', `unix://${tlsEngine.socket}`, 'import', rootfs, 'busybox:local']);
      const serverFlags = [
        '--tlsverify',
        '--tlscacert',
        file('ca.pem'),
        '--tlscert',
        file('server-cert.pem'),
        '--tlskey',
        file('server-key.pem'),
      ];
      tlsManager = await startManager({
        discovery: tlsBackend.addrs,
        port: TLS_MANAGER_PORT,
        expectNodes: 1,
        args: [...serverFlags, '--authorization-plugin', NAME],
        readInfo: () => infoThroughCli(`tcp://127.0.0.1:${TLS_MANAGER_PORT}`, clientFlags()),
      });
    }, 180_000);

    afterAll(async () => {
      setRules([]);
      await tlsManager?.stop();
      await tlsEngine?.stop();
      await tlsBackend?.stop();
    });

    it('sends User (the CN), UserAuthNMethod TLS and the client certificate as dockerd does (base64 of its PEM)', async () => {
      const hosts = { engine: tlsEngine!.host, swarm: tlsManager!.host };
      const result = await both([...clientFlags(), 'ps'], hosts);
      expect([result.swarm.code, result.swarm.stderr]).toEqual([result.engine.code, result.engine.stderr]);
      expect(requests(result.swarmSaw)).toEqual(requests(result.engineSaw));
      const engineList = result.engineCalls.find((call) => call.phase === 'request' && call.RequestUri?.includes('/containers/json'));
      const swarmList = result.swarmCalls.find((call) => call.phase === 'request' && call.RequestUri?.includes('/containers/json'));
      expect(engineList).toMatchObject({ User: 'alice', UserAuthNMethod: 'TLS' });
      expect(swarmList).toMatchObject({ User: 'alice', UserAuthNMethod: 'TLS' });
      // openssl writes PEM as Go's pem.EncodeToMemory does (64-column lines)
      expect(engineList?.RequestPeerCertificates).toEqual([readFileSync(file('alice-cert.pem')).toString('base64')]);
      expect(swarmList?.RequestPeerCertificates).toEqual(engineList?.RequestPeerCertificates);
    });

    it('denies by user with the same text', async () => {
      setRules([{ user: 'alice', uri: /\/containers\/json/, msg: 'alice may not list containers' }]);
      const result = await both([...clientFlags(), 'ps'], { engine: tlsEngine!.host, swarm: tlsManager!.host });
      expect(result.engine.stderr.trim()).toBe(
        `Error response from daemon: authorization denied by plugin ${NAME}: alice may not list containers`,
      );
      expect([result.swarm.code, result.swarm.stderr]).toEqual([result.engine.code, result.engine.stderr]);
    });
  });
});
