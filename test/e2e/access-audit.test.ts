import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessConfig, startAccessCluster, type AccessCluster } from './access-support.js';
import { itJudgedEveryEngineRequest } from './access-invariant.js';

// Engines 225 (zone=a) and 226 (zone=b) behind `swarm manage --tlsverify --audit-log` on port 27470.
// Team b may run only in zone b (a `nodes` limit of its binding).
let cluster: AccessCluster;
let auditFile: string;

interface AuditLine {
  time: string;
  requestId: string;
  user: string;
  groups: string[];
  authMethod: string;
  sourceAddress: string;
  method: string;
  path: string;
  action: string;
  object?: { kind: string; id?: string; name?: string; node?: string };
  decision: { allowed: boolean; plugin?: string; rule?: string; reason?: string };
  status: number;
  durationMs: number;
}

const SECRETS = ['hunter2-env-secret', 's3cret-registry-password', 'bearer-never-logged-4242'];

function auditLines(): AuditLine[] {
  return readFileSync(auditFile, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as AuditLine);
}

beforeAll(async () => {
  cluster = await startAccessCluster({
    firstEngine: 225,
    engines: 2,
    port: 27470,
    labels: [['zone=a'], ['zone=b']],
    recordEngines: true,
    config: (dir) => {
      const config = accessConfig(undefined) as { access: { authz: [string, { bindings: Array<Record<string, unknown>> }][] } };
      const bindings = config.access.authz[0]![1].bindings;
      bindings[1] = { group: 'team-b', role: 'edit', scope: 'team', nodes: 'zone==b' };
      return { ...config, access: { ...config.access, audit: { path: join(dir, 'audit.log') } } };
    },
  });
  auditFile = join(cluster.dir, 'audit.log');
}, 120_000);

afterAll(async () => {
  await cluster?.stop();
});

describe('the audit log', () => {
  it('has a line per request with who, what, on what, the decision and how it ended', async () => {
    const run = await cluster.as('alice', [
      'run',
      '-d',
      '--name',
      'audited',
      '-e',
      `PASSWORD=${SECRETS[0]}`,
      'busybox:local',
      'sleep',
      '600',
    ]);
    expect(run.code, run.stderr).toBe(0);
    const denied = await cluster.as('bob', ['stop', 'audited']);
    expect(denied.stderr).toContain('No such container: audited');
    const refused = await cluster.as('viewer', ['rm', '-f', 'audited']);
    expect(refused.stderr).toContain('user vera (groups auditors) may not container.remove');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const lines = auditLines();
    const create = lines.find((line) => line.action === 'container.create' && line.user === 'alice');
    expect(create).toMatchObject({
      groups: ['team-a'],
      authMethod: 'TLS',
      sourceAddress: '127.0.0.1',
      method: 'POST',
      status: 201,
      decision: { allowed: true, plugin: 'rules' },
    });
    expect(create!.path).toMatch(/^\/v1\.\d+\/containers\/create$/);
    expect(create!.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(Number.isNaN(Date.parse(create!.time))).toBe(false);
    const start = lines.find((line) => line.action === 'container.start' && line.user === 'alice');
    expect(start?.object).toMatchObject({ kind: 'container', name: 'audited' });
    const removal = lines.find((line) => line.action === 'container.remove' && line.user === 'vera');
    expect(removal).toMatchObject({
      status: 403,
      object: { kind: 'container', name: 'audited' },
      decision: { allowed: false, plugin: 'rules', rule: 'bindings[3]' },
    });
    expect(removal!.decision.reason).toContain('may not container.remove');
    // Another team's object is not named in their line either: for bob it did not exist.
    const stop = lines.find((line) => line.action === 'container.stop' && line.user === 'bob');
    expect(stop).toMatchObject({ status: 404 });
    expect(stop!.object).toBeUndefined();
  });

  it('holds no secret: no environment value, registry credential, bearer token, query or body', async () => {
    const registryAuth = Buffer.from(JSON.stringify({ username: 'alice', password: SECRETS[1] })).toString('base64url');
    await cluster.call('alice', 'POST', '/v1.41/images/create?fromImage=busybox&tag=local', undefined, { 'X-Registry-Auth': registryAuth });
    await cluster.call(
      'alice',
      'GET',
      `/v1.41/containers/json?filters=${encodeURIComponent(JSON.stringify({ label: [`x=${SECRETS[0]}`] }))}`,
      undefined,
      {
        Authorization: `Bearer ${SECRETS[2]}`,
      },
    );
    await cluster.call('alice', 'POST', '/v1.41/auth', { username: 'alice', password: SECRETS[1], serveraddress: 'registry.invalid' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const text = readFileSync(auditFile, 'utf8');
    for (const secret of SECRETS) expect(text).not.toContain(secret);
    expect(text).not.toMatch(/x-registry-auth|authorization/i);
    const listing = auditLines().find((line) => line.action === 'container.list' && line.user === 'alice');
    expect(listing?.path).toBe('/v1.41/containers/json');
  });

  it("names the binding that limits a team's nodes when none of them fits", async () => {
    const placed = await cluster.as('bob', [
      'run',
      '-d',
      '--user',
      '1000',
      '--security-opt',
      'no-new-privileges',
      '-m',
      '32m',
      '--cpus',
      '0.2',
      'busybox:local',
      'sleep',
      '600',
    ]);
    expect(placed.code, placed.stderr).toBe(0);
    const node = await cluster.as('bob', ['inspect', '-f', '{{.Node.Name}}', placed.stdout.trim()]);
    expect(node.stdout.trim()).toBe('node226');
    const nowhere = await cluster.as('bob', [
      'run',
      '-d',
      '-e',
      'constraint:zone==a',
      '--user',
      '1000',
      '--security-opt',
      'no-new-privileges',
      '-m',
      '32m',
      '--cpus',
      '0.2',
      'busybox:local',
      'true',
    ]);
    expect(nowhere.code).not.toBe(0);
    expect(nowhere.stderr).toContain('zone==b');
    expect(nowhere.stderr).toContain('your access limits where your containers may run: bindings[1] (group team-b): nodes zone==b');
  });
});

itJudgedEveryEngineRequest('access-audit', () => cluster);
