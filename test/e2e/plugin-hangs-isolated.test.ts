// Indexes 196-197 and ports 29520-29529 belong to this file.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestbed, type Testbed } from '../harness/engines.js';
import { startManager, type InfoAnswer, type Manager } from '../harness/manager.js';
import { docker, type CliResult } from './api-support.js';
import { accessConfig, httpsCall, managerTlsArgs, startAccessCluster, type AccessCluster, type Person } from './access-support.js';

// Access plugins run with `isolate: true` (issue 44): a hook that never returns has its worker
// thread ended at the entry's limit; the manager keeps serving, and SIGTERM still ends it.

const REPO_MODULES = fileURLToPath(new URL('../../node_modules', import.meta.url));
const PORTS = { hangs: 29520, discovery: 29521, isolatedRules: 29525, inProcessRules: 29526 };
const PLUGIN_LABEL = 'swarm-plugin-isolated-hangs@0.1.0';
/** What the restricted policy bob is bound to asks of a create. */
const BOB_OK = ['--user', '1000', '--security-opt', 'no-new-privileges', '-m', '64m', '--cpus', '0.5'];

// A third-party plugin whose hooks spin (synchronous code that never returns) when asked to.
const PLUGIN = `import { definePlugin } from '@swarm/plugin-sdk';
const forever = () => { for (;;) {} };
const admission = ({ options, logger }) => {
  logger.info({ word: options.word }, 'admission controller built in its worker');
  return { admit: (request) => ((request.config.Env ?? []).includes(options.word) ? forever() : { allowed: true }) };
};
export default definePlugin({
  name: 'swarm-plugin-isolated-hangs',
  version: '0.1.0',
  apiVersion: '^2.1.0',
  register(ctx) {
    ctx.authz('spin', { useValue: () => ({
      authorize: (request) => (request.wire.uri.includes('hang') ? forever() : { allowed: true }),
      visibility: () => ({ sees: (object) => (object.labels['spin'] === 'sees' ? forever() : true) }),
    }) });
    ctx.admission('spin', { useValue: admission });
    ctx.admission('spin-open', { useValue: admission });
    // a store that never answers: no entries ever, and a close that never settles
    ctx.discovery('stuck', { useValue: { open: () => ({ watch: () => ({ stop: () => {} }), close: () => new Promise(() => {}) }) } });
  },
});
`;

// The built-in rules authorizer and policy controller, offered again by a third-party package so
// that its plugin entry can say isolate: true.
const REEXPORT = `import { definePlugin } from '@swarm/plugin-sdk';
import { createRulesAuthorizer } from '@swarm/authz-rules';
import { createPolicyController } from '@swarm/admission-policy';
export default definePlugin({
  name: 'swarm-plugin-isolated-rules',
  version: '0.1.0',
  apiVersion: '^2.1.0',
  register(ctx) {
    ctx.authz('rules-isolated', { useValue: createRulesAuthorizer });
    ctx.admission('policy-isolated', { useValue: createPolicyController });
  },
});
`;

function writePackage(dir: string, name: string, source: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, version: '0.1.0', type: 'module', main: 'index.js' }));
  writeFileSync(join(dir, 'index.js'), source);
}

async function ping(port: number): Promise<number> {
  const started = Date.now();
  const answer = await fetch(`http://127.0.0.1:${port}/_ping`, { signal: AbortSignal.timeout(2000) });
  expect(await answer.text()).toBe('OK');
  return Date.now() - started;
}

/** Pings every 100 ms until `pending` settles; the slowest answer. */
async function pingWhile(port: number, pending: Promise<unknown>): Promise<{ slowest: number; count: number }> {
  let settled = false;
  void pending.finally(() => (settled = true));
  let slowest = 0;
  let count = 0;
  while (!settled) {
    slowest = Math.max(slowest, await ping(port));
    count++;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { slowest, count };
}

async function timed<T>(work: Promise<T>): Promise<T & { ms: number }> {
  const started = Date.now();
  const result = await work;
  return { ...result, ms: Date.now() - started };
}

function timeoutText(kind: string, name: string, hook: string, limit: string): string {
  return `Error response from daemon: ${kind} "${name}" (${PLUGIN_LABEL}) did not answer in ${hook} within its time limit of ${limit} (the plugin entry's timeout option sets it)`;
}

describe('isolated access plugins whose hooks never return', () => {
  let work: string;
  let testbed: Testbed;
  let manager: Manager;
  let host: string;
  let engine: string;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'swarm-isolated-hangs-'));
    symlinkSync(REPO_MODULES, join(work, 'node_modules'));
    writePackage(join(work, 'hangs'), 'swarm-plugin-isolated-hangs', PLUGIN);
    const config = {
      plugins: [['./hangs', { isolate: true }]],
      access: {
        authz: [['spin', {}, { timeout: '2s' }]],
        admission: [
          ['spin', { word: 'HANG_ADMIT=1' }, { timeout: '1s' }],
          ['spin-open', { word: 'HANG_OPEN=1' }, { timeout: '1s', failurePolicy: 'ignore' }],
        ],
      },
      watchdog: { limit: '5s' },
    };
    writeFileSync(join(work, 'swarm.config.json'), JSON.stringify(config));
    testbed = await startTestbed({ first: 196, count: 1 });
    engine = `tcp://${testbed.addrs}`;
    manager = await startManager({
      discovery: testbed.addrs,
      port: PORTS.hangs,
      expectNodes: 1,
      args: ['--config', join(work, 'swarm.config.json')],
    });
    host = manager.host;
  });

  afterAll(async () => {
    await manager?.stop();
    await testbed?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it('answers a docker ps whose authorize() spins with the timeout error naming the plugin, serving /_ping and other requests meanwhile', async () => {
    const hung = timed(docker(host, ['ps', '--filter', 'label=hang']));
    // queued behind the spinning hook in the same worker: asked again of the fresh one
    const second = timed(docker(host, ['ps', '--format', '{{.Names}}']));
    const pings = await pingWhile(PORTS.hangs, hung);
    const answer = await hung;
    expect(answer.code, answer.stderr).toBe(1);
    expect(answer.stderr.trim()).toBe(timeoutText('authz', 'spin', 'authorize()', '2s'));
    expect(answer.ms).toBeGreaterThanOrEqual(1900);
    expect(answer.ms).toBeLessThan(6000);
    // a ping queued behind the spinning hook waits for a fresh worker (STALL_MS and its start), not for the limit
    expect(pings.count).toBeGreaterThanOrEqual(4);
    expect(pings.slowest).toBeLessThan(1000);
    const other = await second;
    expect(other.code, other.stderr).toBe(0);
    expect(other.ms).toBeLessThan(answer.ms);
    expect(manager.output()).toContain(
      `authz \\"spin\\" (${PLUGIN_LABEL}) is isolated and ran past 2s in authorize(): its worker thread was ended`,
    );
    // the worker is started afresh for the next request
    const next = await timed(docker(host, ['ps']));
    expect(next.code, next.stderr).toBe(0);
    expect(next.ms).toBeLessThan(3000);
  });

  it('refuses a create whose admission controller spins (failurePolicy fail), and lets one through under failurePolicy ignore', async () => {
    const refused = timed(docker(host, ['create', '-e', 'HANG_ADMIT=1', 'busybox:local', 'true']));
    const pings = await pingWhile(PORTS.hangs, refused);
    const answer = await refused;
    expect(answer.code).toBe(1);
    expect(answer.stderr.trim()).toBe(timeoutText('admission', 'spin', 'admit()', '1s'));
    expect(answer.ms).toBeLessThan(5000);
    expect(pings.slowest).toBeLessThan(500);

    const let_through = await timed(
      docker(host, ['create', '--label', 'isolated-hangs=open', '-e', 'HANG_OPEN=1', 'busybox:local', 'true']),
    );
    expect(let_through.code, let_through.stderr).toBe(0);
    expect(let_through.stdout.trim()).toMatch(/^[0-9a-f]{64}$/);
    expect(let_through.ms).toBeGreaterThanOrEqual(900);
    expect(manager.output()).toContain('admission \\"spin-open\\" failed and its failurePolicy is ignore: the request goes on');
    expect((await docker(host, ['rm', let_through.stdout.trim()])).code).toBe(0);

    const metrics = await (await fetch(`http://127.0.0.1:${PORTS.hangs}/_swarm/metrics`)).text();
    expect(metrics).toContain(`swarm_plugin_calls_total{kind="authz",name="spin",plugin="${PLUGIN_LABEL}",outcome="timeout"} 1`);
    expect(metrics).toContain(`swarm_plugin_calls_total{kind="admission",name="spin",plugin="${PLUGIN_LABEL}",outcome="timeout"} 1`);
    expect(metrics).toContain(`swarm_plugin_calls_total{kind="admission",name="spin-open",plugin="${PLUGIN_LABEL}",outcome="timeout"} 1`);
    // the controllers' factories logged through the host's logger, from their workers
    expect(manager.output()).toContain('admission controller built in its worker');
  });

  it("answers a list whose authorizer's sees() spins with the timeout error, and keeps serving", async () => {
    const made = await docker(engine, ['create', '--label', 'spin=sees', 'busybox:local', 'true']);
    expect(made.code, made.stderr).toBe(0);
    try {
      // until the manager learned of the container, the list is answered without it
      let answer: CliResult & { ms: number } = { code: 0, stdout: '', stderr: '', ms: 0 };
      for (let attempt = 0; attempt < 40 && answer.code === 0; attempt++) {
        answer = await timed(docker(host, ['ps', '-a']));
        if (answer.code === 0) await new Promise((resolve) => setTimeout(resolve, 250));
      }
      expect(answer.code, answer.stdout).toBe(1);
      expect(answer.stderr.trim()).toBe(timeoutText('authz', 'spin', 'sees()', '1s'));
      expect(answer.ms).toBeLessThan(5000);
      expect(await ping(PORTS.hangs)).toBeLessThan(500);
      const version = await docker(host, ['version', '--format', '{{.Server.Version}}']);
      expect(version.code, version.stderr).toBe(0);
      expect(manager.running()).toBe(true);
    } finally {
      await docker(engine, ['rm', '-f', made.stdout.trim()]);
    }
    const metrics = await (await fetch(`http://127.0.0.1:${PORTS.hangs}/_swarm/metrics`)).text();
    expect(metrics).toMatch(
      new RegExp(`swarm_plugin_calls_total\\{kind="authz",name="spin",plugin="${PLUGIN_LABEL}",outcome="timeout"\\} [2-9]`),
    );
  });

  it('ends on SIGTERM while a hook spins, promptly and not by the watchdog', async () => {
    void docker(host, ['ps', '--filter', 'label=hang']);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const started = Date.now();
    await manager.stop();
    expect(Date.now() - started).toBeLessThan(4000);
    expect(manager.exitCode(), manager.output()).toBe(0);
  });
});

describe('a discovery backend whose store never answers (discovery backends are not isolated: their time limits and the watchdog hold them)', () => {
  it('leaves the manager serving with no nodes, and SIGTERM ends it although its close() never settles', async () => {
    const work = mkdtempSync(join(tmpdir(), 'swarm-isolated-discovery-'));
    symlinkSync(REPO_MODULES, join(work, 'node_modules'));
    writePackage(join(work, 'hangs'), 'swarm-plugin-isolated-hangs', PLUGIN);
    writeFileSync(join(work, 'swarm.config.json'), JSON.stringify({ plugins: [['./hangs', { isolate: true }]] }));
    // no node ever comes: expectNodes 0 returns at once, the pings below wait for the listener
    const manager = await startManager({
      discovery: 'stuck://anywhere',
      port: PORTS.discovery,
      expectNodes: 0,
      args: ['--config', join(work, 'swarm.config.json'), '--shutdown-timeout', '2s'],
    });
    try {
      let listening = false;
      for (let attempt = 0; attempt < 100 && !listening; attempt++) {
        listening = await ping(PORTS.discovery).then(
          () => true,
          () => false,
        );
        if (!listening) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(listening, manager.output()).toBe(true);
      const info = await timed(
        docker(`tcp://127.0.0.1:${PORTS.discovery}`, ['info', '--format', '{{.Containers}} {{json .SystemStatus}}']),
      );
      expect(info.code, info.stderr).toBe(0);
      expect(info.stdout).toContain('"Nodes","0"');
      expect(info.ms).toBeLessThan(3000);
      const started = Date.now();
      await manager.stop();
      expect(Date.now() - started).toBeLessThan(4500);
      expect(manager.exitCode(), manager.output()).not.toBeNull();
    } finally {
      await manager.stop();
      rmSync(work, { recursive: true, force: true });
    }
  });
});

describe('the rules authorizer and policy controller, isolated', () => {
  let cluster: AccessCluster;
  let inProcess: Manager;

  const COMMANDS: ReadonlyArray<{ person: Person; args: string[] }> = [
    ...(['alice', 'bob', 'viewer', 'admin', 'outsider'] as const).map((person) => ({
      person,
      args: ['ps', '-a', '--filter', 'name=iso-', '--format', '{{.Names}}'],
    })),
    { person: 'alice', args: ['inspect', '--format', '{{.Name}}', 'iso-a1'] },
    { person: 'alice', args: ['inspect', '--format', '{{.Name}}', 'iso-b1'] },
    { person: 'bob', args: ['rm', 'iso-a1'] },
    { person: 'viewer', args: ['stop', 'iso-b1'] },
    { person: 'outsider', args: ['create', 'busybox:local', 'true'] },
    { person: 'alice', args: ['create', '--privileged', 'busybox:local', 'true'] },
    { person: 'bob', args: ['create', '--cap-add', 'NET_ADMIN', 'busybox:local', 'true'] },
    { person: 'bob', args: ['network', 'ls', '--format', '{{.Name}}'] },
  ];

  const asIn = (port: number, person: Person, args: string[]) =>
    docker(`tcp://127.0.0.1:${port}`, [
      '--tlsverify',
      '--tlscacert',
      join(cluster.dir, 'ca.pem'),
      '--tlscert',
      join(cluster.dir, `${person}-cert.pem`),
      '--tlskey',
      join(cluster.dir, `${person}-key.pem`),
      ...args,
    ]);

  beforeAll(async () => {
    cluster = await startAccessCluster({
      firstEngine: 197,
      engines: 1,
      port: PORTS.isolatedRules,
      config: (dir) => {
        symlinkSync(REPO_MODULES, join(dir, 'node_modules'));
        writePackage(join(dir, 'isolated-rules'), 'swarm-plugin-isolated-rules', REEXPORT);
        const base = accessConfig(undefined);
        const access = base.access as { authz: [string, unknown][]; admission: [string, unknown][] };
        // the in-process manager's config, for the comparison
        writeFileSync(join(dir, 'in-process.json'), JSON.stringify(base));
        return {
          ...base,
          plugins: [['./isolated-rules', { isolate: true }]],
          access: {
            ...access,
            authz: [['rules-isolated', access.authz[0]![1]]],
            admission: [['policy-isolated', access.admission[0]![1]]],
          },
        };
      },
    });
    const readInfo = async (): Promise<InfoAnswer | undefined> => {
      try {
        const answer = await httpsCall(cluster.dir, PORTS.inProcessRules, 'admin', 'GET', '/info');
        return answer.status === 200 ? (JSON.parse(answer.text) as InfoAnswer) : undefined;
      } catch {
        return undefined;
      }
    };
    inProcess = await startManager({
      discovery: cluster.discovery,
      port: PORTS.inProcessRules,
      expectNodes: 1,
      args: ['--config', join(cluster.dir, 'in-process.json'), ...managerTlsArgs(cluster.dir)],
      readInfo,
    });
  });

  afterAll(async () => {
    await inProcess?.stop();
    await cluster?.stop();
  });

  it('gives the same answers as the same plugins in process', async () => {
    const madeA = await asIn(PORTS.isolatedRules, 'alice', ['create', '--name', 'iso-a1', 'busybox:local', 'true']);
    expect(madeA.code, madeA.stderr).toBe(0);
    const madeB = await asIn(PORTS.inProcessRules, 'bob', ['create', '--name', 'iso-b1', ...BOB_OK, 'busybox:local', 'true']);
    expect(madeB.code, madeB.stderr).toBe(0);
    // both managers know both containers before they are compared
    for (const port of [PORTS.isolatedRules, PORTS.inProcessRules]) {
      let names = '';
      for (let attempt = 0; attempt < 50 && names !== 'iso-a1\niso-b1'; attempt++) {
        const listed = await asIn(port, 'admin', ['ps', '-a', '--filter', 'name=iso-', '--format', '{{.Names}}']);
        // Swarm classic's names: node/name
        names = listed.stdout
          .trim()
          .split('\n')
          .map((line) => line.slice(line.indexOf('/') + 1))
          .sort()
          .join('\n');
        if (names !== 'iso-a1\niso-b1') await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(names).toBe('iso-a1\niso-b1');
    }
    const answers: Array<{ command: string; isolated: CliResult; inProcess: CliResult }> = [];
    for (const { person, args } of COMMANDS) {
      const isolated = await asIn(PORTS.isolatedRules, person, args);
      const reference = await asIn(PORTS.inProcessRules, person, args);
      const sorted = (result: CliResult) => ({ ...result, stdout: result.stdout.split('\n').sort().join('\n') });
      answers.push({ command: `${person}: docker ${args.join(' ')}`, isolated: sorted(isolated), inProcess: sorted(reference) });
    }
    for (const { command, isolated, inProcess: reference } of answers) expect({ command, ...isolated }).toEqual({ command, ...reference });
    // the comparison covers allowed and refused answers of both plugins, and scoped lists
    const isolated = answers.map((answer) => answer.isolated);
    expect(isolated.filter((answer) => answer.code === 0).length).toBeGreaterThanOrEqual(4);
    expect(isolated.some((answer) => answer.stderr.includes('may not'))).toBe(true);
    expect(isolated.some((answer) => answer.stderr.includes('admission policy'))).toBe(true);
    expect(isolated[1]!.stdout.trim()).toMatch(/^[^/\n]+\/iso-b1$/);
    expect(cluster.manager.running()).toBe(true);
  });
});
