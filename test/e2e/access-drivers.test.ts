import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestbed, type Testbed } from '../harness/engines.js';
import { startManager, type Manager } from '../harness/manager.js';
import { startZooKeeper, type Service } from '../harness/services.js';
import { startKubernetesDouble, type KubernetesDouble } from '../k8s-double/index.js';
import { startMesosMaster, type MesosMasterDouble } from '../mesos-double/index.js';
import { startMesosManager } from '../mesos-double/swarm-cli.js';
import { docker, tempDir, type CliResult } from './api-support.js';

// Access control lives in the API front, not in the drivers: the same teams, tokens and rules in
// front of the Mesos driver (master double in ZooKeeper on 27490, engine 221 as its agent, manager
// on 27491) and the Kubernetes driver (API server double, engine 222 as its node, manager on 27492).
const ZK_PORT = 27490;
const MESOS_PORT = 27491;
const K8S_PORT = 27492;

type Person = 'alice' | 'bob';
const TOKENS: Readonly<Record<Person, string>> = { alice: 'token-alice-3f9c', bob: 'token-bob-77e1' };

let dir: { path: string; remove(): void };
let mesosEngines: Testbed;
let k8sEngines: Testbed;
let zk: Service;
let master: MesosMasterDouble;
let double: KubernetesDouble;
const managers: Manager[] = [];

/** The docker CLI as a person: their bearer token from a docker config of their own (HttpHeaders). */
function as(port: number, person: Person, ...args: string[]): Promise<CliResult> {
  return docker(`tcp://127.0.0.1:${port}`, args, { env: { DOCKER_CONFIG: join(dir.path, person) } });
}

beforeAll(async () => {
  dir = await tempDir('swarm-e2e-access-drivers-');
  writeFileSync(join(dir.path, 'tokens.csv'), `${TOKENS.alice},alice,1001,"team-a"\n${TOKENS.bob},bob,1002,"team-b"\n`);
  for (const person of ['alice', 'bob'] as const) {
    mkdirSync(join(dir.path, person));
    writeFileSync(join(dir.path, person, 'config.json'), JSON.stringify({ HttpHeaders: { Authorization: `Bearer ${TOKENS[person]}` } }));
  }
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
              // The harness waits for the manager by reading /info without a token.
              anonymous: 'view',
              bindings: [
                { group: 'team-a', role: 'edit' },
                { group: 'team-b', role: 'edit' },
              ],
            },
          ],
        ],
        admission: [['policy', { default: 'baseline' }]],
      },
    }),
  );
  [mesosEngines, k8sEngines, zk] = await Promise.all([
    startTestbed({ first: 221, count: 1 }),
    startTestbed({ first: 222, count: 1 }),
    startZooKeeper(ZK_PORT),
  ]);
  master = await startMesosMaster({
    agents: mesosEngines.engines.map((engine) => ({ host: engine.host, port: engine.port })),
    zk: { servers: zk.addr, path: '/mesos' },
    heartbeatIntervalSeconds: 2,
    statusRetryMs: 500,
  });
  double = await startKubernetesDouble({
    nodes: k8sEngines.engines.map((engine) => ({ engine: { host: engine.host, port: engine.port } })),
  });
  const [mesos, k8s] = await Promise.all([
    startMesosManager(MESOS_PORT, `zk://${zk.addr}/mesos`, ['mesos.tasktimeout=5s', 'mesos.offerrefusetimeout=1s'], 1, {
      args: ['--config', config],
    }),
    startManager({
      discovery: 'k8s://',
      port: K8S_PORT,
      expectNodes: 1,
      args: [
        '--config',
        config,
        '-c',
        'kubernetes',
        '--cluster-opt',
        `kubernetes.kubeconfig=${double.kubeconfig}`,
        '--cluster-opt',
        'kubernetes.namespace=default',
      ],
    }),
  ]);
  managers.push(mesos, k8s);
}, 180_000);

afterAll(async () => {
  await Promise.all(managers.map((manager) => manager.stop()));
  await master?.stop();
  await double?.stop();
  await Promise.all([mesosEngines?.stop(), k8sEngines?.stop(), zk?.stop()]);
  dir?.remove();
});

describe.each([
  ['mesos', MESOS_PORT],
  ['kubernetes', K8S_PORT],
])('access control on the %s driver', (driver, port) => {
  const name = `alice-${driver}`;

  it("a team's container is labelled as theirs and exists for them alone", async () => {
    const run = await as(port, 'alice', 'run', '-d', '--name', name, '-m', '32m', 'busybox:local', 'sleep', '600');
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const owner = await as(
      port,
      'alice',
      'inspect',
      '-f',
      '{{index .Config.Labels "com.docker.swarm.owner"}}/{{index .Config.Labels "com.docker.swarm.team"}}',
      name,
    );
    expect(owner.stdout.trim()).toBe('alice/team-a');
    expect((await as(port, 'alice', 'ps', '--format', '{{.Names}}')).stdout).toContain(name);
    expect((await as(port, 'bob', 'ps', '-a', '--format', '{{.Names}}')).stdout).not.toContain(name);
    const bobInspect = await as(port, 'bob', 'inspect', '--type', 'container', name);
    const missing = await as(port, 'bob', 'inspect', '--type', 'container', `${name}-nobody`);
    expect(bobInspect.code).not.toBe(0);
    expect(bobInspect.stderr.trim()).toBe(missing.stderr.trim().replace(`${name}-nobody`, name));
    const bobLogs = await as(port, 'bob', 'logs', name);
    expect(bobLogs.stderr).toContain(`No such container: ${name}`);
    const bobRm = await as(port, 'bob', 'rm', '-f', name);
    expect(bobRm.stderr).toContain(`No such container: ${name}`);
    expect((await as(port, 'alice', 'ps', '--format', '{{.Names}}')).stdout).toContain(name);
  });

  it('admission judges what the driver would run', async () => {
    const privileged = await as(port, 'alice', 'run', '-d', '--privileged', 'busybox:local', 'true');
    expect(privileged.code).not.toBe(0);
    expect(privileged.stderr).toContain('admission policy "baseline" forbids HostConfig.Privileged');
  });

  it("removes the team's own container", async () => {
    const rm = await as(port, 'alice', 'rm', '-f', name);
    expect(rm.code).toBe(0);
  });
});
