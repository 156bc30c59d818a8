import { readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import { startTestbed, type Testbed } from '../harness/engines.js';
import { startManager, type InfoAnswer, type Manager } from '../harness/manager.js';
import { makeCertificates } from '../harness/certificates.js';
import { docker, tempDir, type CliResult } from './api-support.js';
import { EngineRecorder, type InvariantReport } from './access-invariant.js';

/*
 * A cluster shared by teams: real engines behind `swarm manage --tlsverify` with the built-in
 * `tls` authenticator, the `rules` authorizer and the `policy` admission controller, and a client
 * certificate per person (user = CN, groups = O, as the docker CLI presents it).
 */

export type Person = 'alice' | 'amy' | 'bob' | 'admin' | 'viewer' | 'operator' | 'outsider' | 'manager';

/** Who each certificate names: alice and amy are team a, bob team b, admin an admin. */
export const PEOPLE: Readonly<Record<Person, string>> = {
  alice: '/CN=alice/O=team-a',
  amy: '/CN=amy/O=team-a',
  bob: '/CN=bob/O=team-b',
  admin: '/CN=root-admin/O=admins',
  viewer: '/CN=vera/O=auditors',
  operator: '/CN=otto/O=team-a-ops',
  outsider: '/CN=mallory/O=nobody',
  manager: '/CN=replica/O=swarm-managers',
};

/** The access config every suite starts from; `extra` adds to `access`. */
export function accessConfig(tokenFile: string | undefined, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    access: {
      authn: ['tls', ...(tokenFile ? [['token-file', { path: tokenFile }]] : [])],
      authz: [
        [
          'rules',
          {
            bindings: [
              { group: 'team-a', role: 'edit', scope: 'team' },
              { group: 'team-b', role: 'edit', scope: 'team' },
              { group: 'admins', role: 'admin' },
              { group: 'auditors', role: 'view', scope: 'all' },
              { user: 'otto', role: 'operate', scope: 'all' },
            ],
          },
        ],
      ],
      admission: [
        [
          'policy',
          {
            default: 'baseline',
            bindings: [
              { group: 'admins', level: 'privileged' },
              { group: 'team-b', level: 'restricted' },
            ],
            allowedHostPaths: ['/tmp/swarm-access-data'],
          },
        ],
      ],
      managersGroup: 'swarm-managers',
      ...extra,
    },
  };
}

export interface AccessCluster {
  readonly testbed: Testbed;
  readonly manager: Manager;
  readonly dir: string;
  /** The engine addresses the manager discovers (with `recordEngines`, the recording proxies'): for a second manager on the same engines. */
  readonly discovery: string;
  /** The docker CLI as a person (their certificate), or anonymous (the CA only: no client certificate is refused at TLS). */
  as(person: Person, args: string[], options?: { input?: string }): Promise<CliResult>;
  /** An HTTPS request to the manager as a person. */
  call(
    person: Person | undefined,
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; text: string }>;
  /**
   * With `recordEngines`: stops the manager (a stream's audit line is written when it ends), judges
   * every request the engines received against the audit log (test/e2e/access-invariant.ts) and
   * writes the counts as `suite`'s section of test/bench/results/access-invariant.md.
   */
  engineInvariant(suite: string): Promise<InvariantReport>;
  stop(): Promise<void>;
}

export interface AccessClusterOptions {
  readonly firstEngine: number;
  readonly engines: number;
  readonly port: number;
  /** Engine labels, one list per engine (`zone=a`). */
  readonly labels?: readonly (readonly string[])[];
  readonly config?: (dir: string) => Record<string, unknown>;
  readonly args?: readonly string[];
  /** The engine addresses the manager discovers (proxies in front of the engines); the engines' own by default. */
  readonly discovery?: (testbed: Testbed, dir: string) => Promise<string>;
  /** A recording proxy in front of each engine and an audit log (the config's, or one added), for `engineInvariant`. */
  readonly recordEngines?: boolean;
}

/** The CA, the managers' certificate (O=swarm-managers, for 127.0.0.1 and the engines) and one per person. */
export async function makeAccessCertificates(dir: string, engineIps: readonly string[]): Promise<void> {
  await makeCertificates(dir, {
    ca: '/CN=swarm-access-ca',
    certificates: [
      { name: 'server', subject: '/CN=127.0.0.1/O=swarm-managers', ips: ['127.0.0.1', ...engineIps], usage: ['serverAuth', 'clientAuth'] },
      ...Object.entries(PEOPLE).map(([name, subject]) => ({ name, subject, usage: ['clientAuth' as const] })),
    ],
  });
}

/** `swarm manage`'s TLS flags with the managers' certificate. */
export function managerTlsArgs(dir: string): string[] {
  return [
    '--tlsverify',
    '--tlscacert',
    join(dir, 'ca.pem'),
    '--tlscert',
    join(dir, 'server-cert.pem'),
    '--tlskey',
    join(dir, 'server-key.pem'),
  ];
}

/** The docker CLI's TLS flags for a person's certificate. */
export function certArgs(dir: string, person: Person): string[] {
  return [
    '--tlsverify',
    '--tlscacert',
    join(dir, 'ca.pem'),
    '--tlscert',
    join(dir, `${person}-cert.pem`),
    '--tlskey',
    join(dir, `${person}-key.pem`),
  ];
}

/** The docker CLI against `host` with a person's certificate. */
export function dockerAs(dir: string, host: string, person: Person, args: string[], options?: { input?: string }): Promise<CliResult> {
  return docker(host, [...certArgs(dir, person), ...args], options);
}

/** A body sent as written (JSON that dockerd reads differently from JSON.parse), not stringified. */
export class RawJson {
  constructor(readonly text: string) {}
}

export function httpsCall(
  dir: string,
  port: number,
  person: Person | undefined,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; text: string }> {
  const file = (name: string) => readFileSync(join(dir, name));
  const payload = body === undefined ? undefined : Buffer.from(body instanceof RawJson ? body.text : JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        ca: file('ca.pem'),
        ...(person ? { cert: file(`${person}-cert.pem`), key: file(`${person}-key.pem`) } : {}),
        // a User-Agent as every client sends one: the manager's own engine requests are told apart by having none
        headers: {
          'User-Agent': 'swarm-access-test',
          ...(payload ? { 'Content-Type': 'application/json', 'Content-Length': String(payload.length) } : {}),
          ...headers,
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

export async function startAccessCluster(options: AccessClusterOptions): Promise<AccessCluster> {
  const temp = await tempDir('swarm-e2e-access-');
  const dir = temp.path;
  const first = options.firstEngine;
  const ips = Array.from({ length: options.engines }, (_, i) => `127.0.0.${first + i + 1}`);
  await makeAccessCertificates(dir, ips);
  const testbeds = await Promise.all(
    Array.from({ length: options.engines }, (_, i) =>
      startTestbed({ first: first + i, count: 1, tlsDir: dir, labels: [...(options.labels?.[i] ?? [])] }),
    ),
  );
  const testbed: Testbed = {
    engines: testbeds.flatMap((bed) => bed.engines),
    addrs: testbeds.map((bed) => bed.addrs).join(','),
    stop: async () => {
      await Promise.all(testbeds.map((bed) => bed.stop()));
    },
    stopEngine: (index) => testbeds.find((bed) => bed.engines.some((engine) => engine.index === index))!.stopEngine(index),
    startEngine: (index) => testbeds.find((bed) => bed.engines.some((engine) => engine.index === index))!.startEngine(index),
  };
  const config = options.config?.(dir) ?? accessConfig(undefined);
  const recorder = options.recordEngines ? new EngineRecorder() : undefined;
  const access = (config.access ?? {}) as { audit?: { path?: string } };
  if (recorder && access.audit?.path === undefined) config.access = { ...access, audit: { ...access.audit, path: join(dir, 'audit.log') } };
  const auditPath = (config.access as { audit?: { path?: string } } | undefined)?.audit?.path;
  writeFileSync(join(dir, 'swarm.config.json'), JSON.stringify(config, null, 2));
  const tls = [
    '--tlsverify',
    '--tlscacert',
    join(dir, 'ca.pem'),
    '--tlscert',
    join(dir, 'server-cert.pem'),
    '--tlskey',
    join(dir, 'server-key.pem'),
  ];
  const readInfo = async (): Promise<InfoAnswer | undefined> => {
    try {
      const answer = await httpsCall(dir, options.port, 'admin', 'GET', '/info');
      return answer.status === 200 ? (JSON.parse(answer.text) as InfoAnswer) : undefined;
    } catch {
      return undefined;
    }
  };
  if (recorder && options.discovery) throw new Error('recordEngines brings its own discovery');
  const discovery = recorder
    ? await recorder.start(testbed.engines, { dir: () => dir })
    : options.discovery
      ? await options.discovery(testbed, dir)
      : testbed.addrs;
  // the invariant's stop must end within the harness's 5 s, or the audit log's last lines are lost
  const shutdown = recorder && !options.args?.includes('--shutdown-timeout') ? ['--shutdown-timeout', '2s'] : [];
  const manager = await startManager({
    discovery,
    port: options.port,
    expectNodes: options.engines,
    args: ['--config', join(dir, 'swarm.config.json'), ...tls, ...shutdown, ...(options.args ?? [])],
    readInfo,
  });
  return {
    testbed,
    manager,
    dir,
    discovery,
    as: (person, args, cliOptions) => dockerAs(dir, manager.host, person, args, cliOptions),
    call: (person, method, path, body, headers) => httpsCall(dir, options.port, person, method, path, body, headers),
    engineInvariant: async (suite) => {
      if (!recorder || auditPath === undefined) throw new Error('engineInvariant needs recordEngines: true');
      await manager.stop();
      return recorder.judge(suite, auditPath);
    },
    stop: async () => {
      await manager.stop();
      await recorder?.stop();
      await testbed.stop();
      temp.remove();
    },
  };
}
