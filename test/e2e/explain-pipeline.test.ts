import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlacementExplanation } from '@swarm/plugin-sdk';
import { makeCertificates } from '../harness/certificates.js';
import { startManager, type InfoAnswer, type Manager } from '../harness/manager.js';
import { docker, type CliResult } from './api-support.js';
import { PEOPLE, accessConfig, managerTlsArgs, startAccessCluster, type AccessCluster, type Person } from './access-support.js';

/*
 * Issue 44 item 2: `swarm schedule --explain` and `/_swarm/v1/explain` are a dry run of what a
 * `docker run` goes through (authentication, authorization as `container.create` with the body,
 * admission, scheduling), stopping before the engine. Each caller's explain is compared with the
 * same caller's real `docker run`: the same refusal text at the same stage, exit 1 for a refusal,
 * and nothing made by the dry run. The authentication stage is compared from the same client
 * environment (DOCKER_TLS_VERIFY, DOCKER_CERT_PATH, DOCKER_CONFIG's HttpHeaders) for both: a
 * certificate that names nobody and one another CA signed on the --tlsverify listener, then, on the
 * same port restarted with --tls (token clients), a bad bearer token and no credential at all.
 *
 * Engines 162-163; manager on 29030 (--tlsverify, then --tls for the token cases).
 */

const PORT = 29030;
const ALICE_TOKEN = '5d0c3f7e-explain-alice-token';
/** The 401 body a refused credential gets, whatever route it asked: the refusal's text and nothing else. */
const INVALID_TOKEN = 'authentication failed: invalid bearer token';
const NO_CN = 'authentication failed: the client certificate has no subject common name (CN) to name the user';
const SWARM = fileURLToPath(new URL('../../core/bin/swarm.js', import.meta.url));
let cluster: AccessCluster;
const openssl = async (cwd: string, args: string[]) => {
  await promisify(execFile)('openssl', args, { cwd });
};

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** `swarm schedule --explain` as a person: their certificate in the docker CLI's environment variables. */
function explainAs(person: Person, args: string[]): Promise<Run> {
  const certs = join(cluster.dir, `cli-${person}`);
  mkdirSync(certs, { recursive: true });
  copyFileSync(join(cluster.dir, 'ca.pem'), join(certs, 'ca.pem'));
  copyFileSync(join(cluster.dir, `${person}-cert.pem`), join(certs, 'cert.pem'));
  copyFileSync(join(cluster.dir, `${person}-key.pem`), join(certs, 'key.pem'));
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [SWARM, 'schedule', '--explain', '-H', `tcp://127.0.0.1:${PORT}`, ...args],
      { env: { ...process.env, DOCKER_TLS_VERIFY: '1', DOCKER_CERT_PATH: certs, DOCKER_HOST: '' }, timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 99) : 0, stdout, stderr }),
    );
  });
}

/** What `docker run` as the same person answers: the daemon's refusal text. */
async function runRefusal(person: Person, args: string[]): Promise<string> {
  const result = await cluster.as(person, ['run', '-d', '--pull', 'never', ...args]);
  expect(result.code, `docker run ${args.join(' ')} as ${person} was not refused: ${result.stdout}`).not.toBe(0);
  const match = /Error response from daemon: (.*)$/m.exec(result.stderr);
  expect(match, result.stderr).not.toBeNull();
  return match![1]!.trim();
}

/** A client's folder as the docker CLI reads it: ca.pem, an optional cert.pem/key.pem, an optional config.json. */
function clientDir(name: string, files: { cert?: string; key?: string; caFrom?: string; token?: string }): string {
  const folder = join(cluster.dir, `client-${name}`);
  mkdirSync(folder, { recursive: true });
  copyFileSync(join(cluster.dir, 'ca.pem'), join(folder, 'ca.pem'));
  if (files.cert && files.key) {
    copyFileSync(files.cert, join(folder, 'cert.pem'));
    copyFileSync(files.key, join(folder, 'key.pem'));
  }
  writeFileSync(
    join(folder, 'config.json'),
    JSON.stringify(files.token ? { HttpHeaders: { Authorization: `Bearer ${files.token}` } } : {}),
  );
  return folder;
}

function clientEnv(folder: string): Record<string, string> {
  return { DOCKER_TLS_VERIFY: '1', DOCKER_CERT_PATH: folder, DOCKER_CONFIG: folder, DOCKER_HOST: '' };
}

/** `swarm schedule --explain` from a client folder. */
function explainFrom(folder: string, args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [SWARM, 'schedule', '--explain', '-H', `tcp://127.0.0.1:${PORT}`, ...args],
      { env: { ...process.env, ...clientEnv(folder) }, timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 99) : 0, stdout, stderr }),
    );
  });
}

/** The docker CLI from the same client folder, nothing on its command line but the manager. */
function dockerFrom(folder: string, args: string[]): Promise<CliResult> {
  return docker(`tcp://127.0.0.1:${PORT}`, args, { env: clientEnv(folder) });
}

/** What `docker run` from a client folder is answered: the daemon's refusal text. */
async function runRefusalFrom(folder: string, args: string[]): Promise<string> {
  const result = await dockerFrom(folder, ['run', '-d', '--pull', 'never', ...args]);
  expect(result.code, `docker run ${args.join(' ')} was not refused: ${result.stdout}`).not.toBe(0);
  const match = /Error response from daemon: (.*)$/m.exec(result.stderr);
  expect(match, result.stderr).not.toBeNull();
  return match![1]!.trim().replace(/\.$/, '');
}

/** An HTTPS request to the manager from a client folder: its certificate if it holds one, its config.json's headers. */
function callFrom(folder: string, method: string, path: string, body?: unknown): Promise<{ status: number; text: string }> {
  const file = (name: string) => readFileSync(join(folder, name));
  const certified = existsSync(join(folder, 'cert.pem'));
  const { HttpHeaders } = JSON.parse(file('config.json').toString()) as { HttpHeaders?: Record<string, string> };
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: PORT,
        method,
        path,
        ca: file('ca.pem'),
        ...(certified ? { cert: file('cert.pem'), key: file('key.pem') } : {}),
        headers: {
          'User-Agent': 'swarm-explain-test',
          ...HttpHeaders,
          ...(payload ? { 'Content-Type': 'application/json', 'Content-Length': String(payload.length) } : {}),
        },
        timeout: 15_000,
      },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

async function containerCount(): Promise<number> {
  const answer = await cluster.call('admin', 'GET', '/containers/json?all=1');
  return (JSON.parse(answer.text) as unknown[]).length;
}

beforeAll(async () => {
  cluster = await startAccessCluster({
    firstEngine: 162,
    engines: 2,
    port: PORT,
    // the web view's explain is compared with the API's and the CLI's
    args: ['--ui'],
    config: (dir) => {
      writeFileSync(join(dir, 'tokens.csv'), `${ALICE_TOKEN},alice,1001,"team-a"\n`, { mode: 0o600 });
      return accessConfig(join(dir, 'tokens.csv'));
    },
  });
  const dir = cluster.dir;
  // a certificate the cluster's CA signed that names nobody (no CN), as docker-machine's carry only an O
  await openssl(dir, ['req', '-newkey', 'rsa:2048', '-nodes', '-subj', '/O=team-a', '-keyout', 'nocn-key.pem', '-out', 'nocn.csr']);
  writeFileSync(join(dir, 'nocn.cnf'), 'extendedKeyUsage=clientAuth\n');
  await openssl(dir, [
    'x509',
    '-req',
    '-in',
    'nocn.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca-key.pem',
    '-CAcreateserial',
    '-days',
    '1',
    '-extfile',
    'nocn.cnf',
    '-out',
    'nocn-cert.pem',
  ]);
  // alice's very subject, signed by a CA the manager does not know
  const strangers = join(dir, 'stranger-ca');
  mkdirSync(strangers);
  await makeCertificates(strangers, {
    ca: '/CN=another-ca',
    certificates: [{ name: 'alice', subject: PEOPLE.alice, usage: ['clientAuth'] }],
  });
}, 180_000);

afterAll(async () => {
  await cluster?.stop();
});

describe('explain is a dry run of the pipeline a docker run goes through', () => {
  it('places what every stage allows: exit 0, a chosen node', async () => {
    const placed = await explainAs('alice', ['busybox:local', 'true']);
    expect(placed.code, placed.stderr).toBe(0);
    expect(placed.stdout).toMatch(/^Chosen: /m);
  });

  it("is refused at admission with the create's own text, exit 1", async () => {
    const before = await containerCount();
    const refusal = await runRefusal('alice', ['--net', 'host', 'busybox:local', 'true']);
    expect(refusal).toBe('admission policy "baseline" forbids HostConfig.NetworkMode=host');
    const explained = await explainAs('alice', ['--net', 'host', 'busybox:local', 'true']);
    expect(explained.code, explained.stdout + explained.stderr).toBe(1);
    expect(explained.stdout).toContain('Refused by admission, before scheduling (docker run gets 403 SWARM_ERR_PERMISSION_DENIED):');
    expect(explained.stdout).toContain(`Error: ${refusal}\n`);
    // bob's level is restricted: his explain is judged by his binding, as his run is
    const bobs = await runRefusal('bob', ['busybox:local', 'true']);
    const bobExplained = await explainAs('bob', ['busybox:local', 'true']);
    expect(bobExplained.code).toBe(1);
    expect(bobExplained.stdout).toContain(`Refused by admission`);
    expect(bobExplained.stdout).toContain(`Error: ${bobs}\n`);
    expect(await containerCount()).toBe(before);
  });

  it("is refused at authorization (container.create with its body) with the create's own text, exit 1", async () => {
    // the auditors may view and explain, not create
    const refusal = await runRefusal('viewer', ['busybox:local', 'true']);
    const explained = await explainAs('viewer', ['busybox:local', 'true']);
    expect(explained.code, explained.stdout + explained.stderr).toBe(1);
    expect(explained.stdout).toContain('Refused by authorization, before scheduling (docker run gets 403 SWARM_ERR_PERMISSION_DENIED):');
    expect(explained.stdout).toContain(`Error: ${refusal}\n`);
  });

  it('answers the same over the API, as JSON, with the stage, code and status', async () => {
    const answer = await cluster.call('alice', 'POST', '/_swarm/v1/explain', { Image: 'busybox:local', HostConfig: { Privileged: true } });
    expect(answer.status).toBe(200);
    const explanation = JSON.parse(answer.text) as PlacementExplanation;
    expect(explanation).toMatchObject({
      nodes: [],
      error: 'admission policy "baseline" forbids HostConfig.Privileged',
      refused: { stage: 'admission', code: 'SWARM_ERR_PERMISSION_DENIED', status: 403 },
    });
    const allowed = JSON.parse(
      (await cluster.call('alice', 'POST', '/_swarm/v1/explain', { Image: 'busybox:local' })).text,
    ) as PlacementExplanation;
    expect(allowed.refused).toBeUndefined();
    expect(allowed.chosen).toBeDefined();
  });

  it('stops before the engine: a named volume the create would make is not made', async () => {
    const answer = await cluster.call('alice', 'POST', '/_swarm/v1/explain', {
      Image: 'busybox:local',
      HostConfig: { Binds: ['explain-dry-run-volume:/data'] },
    });
    expect(answer.status, answer.text).toBe(200);
    expect((JSON.parse(answer.text) as PlacementExplanation).chosen).toBeDefined();
    const volumes = JSON.parse((await cluster.call('admin', 'GET', '/volumes')).text) as { Volumes: Array<{ Name: string }> | null };
    expect((volumes.Volumes ?? []).map((volume) => volume.Name)).not.toContain('explain-dry-run-volume');
  });

  it('is an error, exit 2, for a caller who may not explain at all', async () => {
    const explained = await explainAs('outsider', ['busybox:local', 'true']);
    expect(explained.code).toBe(2);
    expect(explained.stderr).toMatch(/^manager answered 403: /);
  });
});

/** A refused credential learns the refusal and nothing else: no node, strategy or filter of the cluster. */
function expectOnlyRefusal(answer: { status: number; text: string }, message: string): void {
  expect(answer.status, answer.text).toBe(401);
  const body = JSON.parse(answer.text) as Record<string, unknown>;
  expect(body['message']).toBe(message);
  expect(Object.keys(body).filter((key) => key !== 'message' && key !== 'code')).toEqual([]);
  for (const secret of [...cluster.testbed.engines.map((engine) => engine.name), 'spread', 'constraint', 'affinity']) {
    expect(answer.text).not.toContain(secret);
  }
}

/** `/_swarm/v1/explain` and the web view's explain, from a client folder. */
async function explainRoutesFrom(folder: string): Promise<Array<{ status: number; text: string }>> {
  return [
    await callFrom(folder, 'POST', '/_swarm/v1/explain', { Image: 'busybox:local' }),
    await callFrom(folder, 'POST', '/swarm/ui/api/explain', { args: ['busybox:local', 'true'] }),
  ];
}

/** The CLI's output for a refusal at authentication: the stage, docker run's 401 and its text, no scheduler. */
function expectAuthenticationRefusal(explained: Run, refusal: string): void {
  expect(explained.code, explained.stdout + explained.stderr).toBe(1);
  expect(explained.stdout).toBe(
    `Strategy: -\nFilters: \n\nRefused by authentication, before scheduling (docker run gets 401 SWARM_ERR_UNAUTHENTICATED):\nError: ${refusal}\n`,
  );
}

describe('the authentication stage on the --tlsverify listener, beside docker run', () => {
  it('the web view explains as the API does: the stage that refused, with its text', async () => {
    const alice = clientDir('alice', { cert: join(cluster.dir, 'alice-cert.pem'), key: join(cluster.dir, 'alice-key.pem') });
    const web = await callFrom(alice, 'POST', '/swarm/ui/api/explain', { args: ['--net', 'host', 'busybox:local', 'true'] });
    expect(web.status, web.text).toBe(200);
    const api = await callFrom(alice, 'POST', '/_swarm/v1/explain', { Image: 'busybox:local', HostConfig: { NetworkMode: 'host' } });
    const { explanation, text } = JSON.parse(web.text) as { explanation: PlacementExplanation; text: string };
    expect(explanation.refused).toEqual({ stage: 'admission', code: 'SWARM_ERR_PERMISSION_DENIED', status: 403 });
    expect(explanation.error).toBe((JSON.parse(api.text) as PlacementExplanation).error);
    expect(text).toBe((await explainFrom(alice, ['--net', 'host', 'busybox:local', 'true'])).stdout);
  });

  it('a certificate that names no one (no CN): the 401 docker run gets, exit 1, and nothing of the cluster', async () => {
    const nocn = clientDir('nocn', { cert: join(cluster.dir, 'nocn-cert.pem'), key: join(cluster.dir, 'nocn-key.pem') });
    const before = await containerCount();
    const refusal = await runRefusalFrom(nocn, ['busybox:local', 'true']);
    expect(refusal).toBe(NO_CN);
    expectAuthenticationRefusal(await explainFrom(nocn, ['busybox:local', 'true']), refusal);
    for (const answer of await explainRoutesFrom(nocn)) expectOnlyRefusal(answer, NO_CN);
    expect(await containerCount()).toBe(before);
  });

  it('a certificate another CA signed: refused at the TLS handshake for both, before any HTTP answer; explain exits 2', async () => {
    const strangers = join(cluster.dir, 'stranger-ca');
    const stranger = clientDir('stranger', { cert: join(strangers, 'alice-cert.pem'), key: join(strangers, 'alice-key.pem') });
    const run = await dockerFrom(stranger, ['run', '-d', '--pull', 'never', 'busybox:local', 'true']);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/error during connect: .*tls: /);
    expect(run.stderr).not.toContain('Error response from daemon');
    // no manager answered: the README's exit 2 (the manager cannot be reached), with nothing on stdout
    const explained = await explainFrom(stranger, ['busybox:local', 'true']);
    expect(explained.code, explained.stdout + explained.stderr).toBe(2);
    expect(explained.stdout).toBe('');
    expect(explained.stderr).toMatch(
      /^Cannot connect to the swarm manager at tcp:\/\/127\.0\.0\.1:29030: .*a --tlsverify manager refuses a client certificate its CA did not sign\n$/,
    );
    await expect(callFrom(stranger, 'POST', '/_swarm/v1/explain', { Image: 'busybox:local' })).rejects.toThrow();
  });

  it("no client certificate: refused at the TLS handshake for both, in docker run's words; explain exits 2", async () => {
    const nobody = clientDir('no-certificate', {});
    const run = await dockerFrom(nobody, ['run', '-d', '--pull', 'never', 'busybox:local', 'true']);
    expect(run.code).not.toBe(0);
    const said = /remote error: tls: [a-z ]+/.exec(run.stderr)?.[0];
    expect(said, run.stderr).toBe('remote error: tls: certificate required');
    const explained = await explainFrom(nobody, ['busybox:local', 'true']);
    expect(explained.code, explained.stdout + explained.stderr).toBe(2);
    expect(explained.stdout).toBe('');
    expect(explained.stderr).toBe(`Cannot connect to the swarm manager at tcp://127.0.0.1:29030: ${said}\n`);
  });
});

describe('the authentication stage for token clients (the same port, restarted with --tls), beside docker run', () => {
  let tokens: Manager | undefined;

  beforeAll(async () => {
    await cluster.manager.stop();
    const alice = clientDir('alice-token', { token: ALICE_TOKEN });
    tokens = await startManager({
      discovery: cluster.discovery,
      port: PORT,
      expectNodes: 2,
      // the same config; a listener that asks for no client certificate, as token clients need
      args: ['--config', join(cluster.dir, 'swarm.config.json'), '--ui', '--tls', ...managerTlsArgs(cluster.dir).slice(1)],
      readInfo: async () => {
        try {
          const answer = await callFrom(alice, 'GET', '/info');
          return answer.status === 200 ? (JSON.parse(answer.text) as InfoAnswer) : undefined;
        } catch {
          return undefined;
        }
      },
    });
  }, 120_000);

  afterAll(async () => {
    await tokens?.stop();
  });

  it("a bearer token the file does not hold: docker run's 401 and text, exit 1, and nothing of the cluster", async () => {
    const bad = clientDir('bad-token', { token: 'not-a-token-of-this-cluster' });
    const refusal = await runRefusalFrom(bad, ['busybox:local', 'true']);
    expect(refusal).toBe(INVALID_TOKEN);
    expectAuthenticationRefusal(await explainFrom(bad, ['busybox:local', 'true']), refusal);
    for (const answer of await explainRoutesFrom(bad)) expectOnlyRefusal(answer, INVALID_TOKEN);
  });

  it("a good token is carried as docker run carries it (config.json's HttpHeaders): alice's explain is alice's", async () => {
    const alice = clientDir('alice-token', { token: ALICE_TOKEN });
    const placed = await explainFrom(alice, ['busybox:local', 'true']);
    expect(placed.code, placed.stdout + placed.stderr).toBe(0);
    expect(placed.stdout).toMatch(/^Chosen: /m);
    const refusal = await runRefusalFrom(alice, ['--net', 'host', 'busybox:local', 'true']);
    const explained = await explainFrom(alice, ['--net', 'host', 'busybox:local', 'true']);
    expect(explained.code).toBe(1);
    expect(explained.stdout).toContain(`Refused by admission`);
    expect(explained.stdout).toContain(`Error: ${refusal}\n`);
  });

  it('no credential at all: the anonymous caller, whom authorization refuses explain (exit 2) as it refuses the run', async () => {
    const nobody = clientDir('nobody', {});
    const refusal = await runRefusalFrom(nobody, ['busybox:local', 'true']);
    expect(refusal).toContain('system:anonymous');
    const explained = await explainFrom(nobody, ['busybox:local', 'true']);
    expect(explained.code, explained.stdout + explained.stderr).toBe(2);
    expect(explained.stderr).toMatch(/^manager answered 403: .*system:anonymous.*swarm\.explain/);
    for (const answer of await explainRoutesFrom(nobody)) {
      expect(answer.status, answer.text).toBe(403);
      for (const secret of cluster.testbed.engines.map((engine) => engine.name)) expect(answer.text).not.toContain(secret);
    }
  });
});
