import { randomBytes } from 'node:crypto';
import { ok, strictEqual } from 'node:assert/strict';
import type { Cluster, ClusterCapabilities } from '../cluster.js';
import { isSwarmError } from '../errors.js';
import { isDeepStrictEqual } from 'node:util';
import type { Container, Node, NodeSnapshot } from '../node.js';
import { readSnapshot } from '../helpers/node-snapshot.js';
import type { ContainerConfig } from '../types/docker.js';
import { runAsyncChecks, type Tester } from './checks.js';

export interface DriverConformanceOptions {
  /** The driver's name, for the check names (`driver "k8s": ...`). */
  readonly name: string;
  /**
   * A new, not yet started cluster for each check: usually
   * `pluginProviders(plugin, services).get<Cluster>(Tokens.ClusterDriver, name)`, with
   * `testScheduler()` and `testDeployment(...)` among the services.
   */
  readonly create: () => Cluster | Promise<Cluster>;
  /** Healthy nodes the cluster must show after `start` (it may find them in the background). Default 0. */
  readonly minNodes?: number;
  /** How long to wait for `minNodes`. Default 10,000 ms. */
  readonly nodesWithinMs?: number;
  /**
   * A config the started cluster can place and run (`{ Image: 'busybox', Cmd: ['sleep', '30'] }`):
   * then a create, start and remove round trip is checked too.
   */
  readonly runnable?: ContainerConfig;
}

const STATUSES = new Set(['pending', 'healthy', 'unhealthy', 'disconnected']);

/** The members each capability must have, as `ClusterCapabilities` declares them. */
const CAPABILITY_MEMBERS: Readonly<Record<keyof ClusterCapabilities, readonly string[]>> = {
  images: ['list', 'find'],
  imagePull: ['pull'],
  imageManagement: ['importFrom', 'load', 'tag', 'remove'],
  volumes: ['list', 'find'],
  volumeManagement: ['create', 'remove'],
  networks: ['list', 'find'],
  networkManagement: ['create', 'remove'],
  builds: ['place'],
  enginePlugins: ['nodes'],
  containerRename: ['rename'],
  containerRestart: ['restart'],
};

function assertCount(value: unknown, what: string): void {
  ok(typeof value === 'number' && Number.isFinite(value) && value >= 0, `${what} is a finite number ≥ 0, not ${String(value)}`);
}

function assertNode(node: Node): void {
  const label = `node ${JSON.stringify(node.name)}`;
  ok(typeof node.id === 'string' && node.id.length > 0, `${label} has an id`);
  ok(typeof node.name === 'string' && node.name.length > 0, 'a node has a name');
  ok(typeof node.ip === 'string' && typeof node.addr === 'string', `${label} has ip and addr strings`);
  for (const [what, value] of Object.entries({
    totalCpus: node.totalCpus(),
    usedCpus: node.usedCpus(),
    totalMemory: node.totalMemory(),
    usedMemory: node.usedMemory(),
  }))
    assertCount(value, `${label} ${what}()`);
  const labels = node.labels();
  ok(typeof labels === 'object' && labels !== null, `${label} labels() is an object`);
  for (const [key, value] of Object.entries(labels)) ok(typeof value === 'string', `${label} label ${key} is a string`);
  ok(STATUSES.has(node.status()), `${label} status() ${JSON.stringify(node.status())} is pending, healthy, unhealthy or disconnected`);
  strictEqual(typeof node.isHealthy(), 'boolean', `${label} isHealthy() is a boolean`);
  const indicator = node.healthIndicator();
  ok(indicator >= 0 && indicator <= 100, `${label} healthIndicator() ${indicator} is within 0-100`);
  const lastError = node.lastError();
  ok(lastError === undefined || typeof lastError === 'string', `${label} lastError() is a string or undefined`);
  ok(Array.isArray(node.containers()) && Array.isArray(node.images()), `${label} containers() and images() are arrays`);
  strictEqual(node.container(`no-such-container-${randomBytes(4).toString('hex')}`), undefined, `${label} container(unknown)`);
  strictEqual(typeof node.snapshot, 'function', `${label} has snapshot() (required since plugin API 2.0)`);
  strictEqual(typeof node.watch, 'function', `${label} has watch() (required since plugin API 2.0)`);
  const stop = node.watch(() => undefined);
  strictEqual(typeof stop, 'function', `${label} watch() returns the function that stops it`);
  stop();
  assertSnapshot(node, node.snapshot(), label);
}

/** A node's snapshot: the same frozen object while nothing changes, saying what its methods say. */
function assertSnapshot(node: Node, snapshot: NodeSnapshot, label: string): void {
  strictEqual(node.snapshot(), snapshot, `${label} snapshot() hands out the same object while nothing changes`);
  ok(Object.isFrozen(snapshot), `${label} snapshot() is frozen`);
  strictEqual(snapshot.node, node, `${label} snapshot().node is the node`);
  ok(Number.isInteger(snapshot.version) && snapshot.version >= 0, `${label} snapshot().version is an integer ≥ 0`);
  const answers = readSnapshot(node, snapshot.version);
  for (const key of Object.keys(answers) as Array<keyof NodeSnapshot>) {
    ok(isDeepStrictEqual(snapshot[key], answers[key]), `${label} snapshot().${key} is what the node's own method answers`);
  }
}

function assertContainer(container: Container, cluster: Cluster): void {
  const label = `container ${JSON.stringify(container.name)}`;
  ok(typeof container.id === 'string' && container.id.length > 0, `${label} has an id`);
  ok(typeof container.name === 'string' && !container.name.startsWith('/'), `${label}: name without the leading slash`);
  ok(typeof container.state === 'string' && container.state.length > 0, `${label} has a state`);
  ok(typeof container.labels === 'object' && container.labels !== null, `${label} has labels`);
  ok(typeof container.config?.Image === 'string', `${label} config has an Image`);
  ok(typeof container.summary?.Id === 'string', `${label} has the engine's summary`);
  ok(
    cluster.nodes().some((node) => node.id === container.node.id),
    `${label} is on one of nodes() (node ${container.node.name})`,
  );
  strictEqual(cluster.container(container.id)?.id, container.id, `container(id) finds ${label}`);
}

async function until(condition: () => boolean, withinMs: number): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}

/** Runs `use` on a started cluster, and stops it whatever happens. */
async function withStarted(options: DriverConformanceOptions, use: (cluster: Cluster) => Promise<void> | void): Promise<void> {
  const cluster = await options.create();
  await cluster.start();
  try {
    const minNodes = options.minNodes ?? 0;
    const healthy = () => cluster.nodes().filter((node) => node.isHealthy()).length;
    const found = await until(() => healthy() >= minNodes, options.nodesWithinMs ?? 10_000);
    ok(found, `${minNodes} healthy node(s) within ${options.nodesWithinMs ?? 10_000} ms, found ${healthy()}`);
    await use(cluster);
  } finally {
    await cluster.stop();
  }
}

/**
 * Checks every cluster driver must pass: it starts and stops (twice), its nodes and containers
 * answer well-formed facts from memory, `info` and `explain` have the shapes the API renders,
 * an unplaceable create is refused with a coded error, events can be unsubscribed, offered
 * capabilities are whole, and (with `runnable`) a container goes through create, start and remove.
 * With a tester (vitest's `{ it }`) one test per check; without, they run now and the promise
 * rejects on the first failure.
 */
export function driverConformance(options: DriverConformanceOptions, tester?: Tester): Promise<void> {
  const name = `driver ${JSON.stringify(options.name)}`;
  return runAsyncChecks(
    [
      {
        name: `${name}: starts, stops, and may be stopped again`,
        run: async () => {
          const cluster = await options.create();
          strictEqual(cluster.driverName, options.name, 'driverName');
          await cluster.start();
          await cluster.stop();
          await cluster.stop();
        },
      },
      {
        name: `${name}: nodes and containers answer well-formed facts`,
        run: () =>
          withStarted(options, (cluster) => {
            for (const node of cluster.nodes()) assertNode(node);
            for (const container of cluster.containers()) assertContainer(container, cluster);
            strictEqual(cluster.container(`no-such-container-${randomBytes(4).toString('hex')}`), undefined, 'container(unknown)');
          }),
      },
      {
        name: `${name}: info has the rows and counts docker info shows`,
        run: () =>
          withStarted(options, (cluster) => {
            const info = cluster.info();
            strictEqual(info.driver, cluster.driverName, 'info().driver is the driver name');
            ok(Array.isArray(info.systemStatus), 'systemStatus is an array of rows');
            for (const row of info.systemStatus)
              ok(
                Array.isArray(row) && row.length === 2 && row.every((cell) => typeof cell === 'string'),
                `row ${JSON.stringify(row)} is [string, string]`,
              );
            for (const key of [
              'ncpu',
              'memTotal',
              'containers',
              'containersRunning',
              'containersPaused',
              'containersStopped',
              'images',
            ] as const)
              assertCount(info[key], `info().${key}`);
            strictEqual(
              info.containersRunning + info.containersPaused + info.containersStopped,
              info.containers,
              'running + paused + stopped = containers',
            );
          }),
      },
      {
        name: `${name}: explain describes every node it considered`,
        run: () =>
          withStarted(options, (cluster) => {
            const explanation = cluster.explain({ Image: 'busybox' });
            ok(typeof explanation.strategy === 'string' && Array.isArray(explanation.filters), 'strategy and filters');
            ok(typeof explanation.summary === 'string' && explanation.summary.length > 0, 'a summary');
            const names = new Set(cluster.nodes().map((node) => node.name));
            for (const node of explanation.nodes) {
              ok(names.has(node.name), `explained node ${node.name} is one of nodes()`);
              ok(Array.isArray(node.verdicts) && typeof node.feasible === 'boolean', `node ${node.name}: verdicts and feasible`);
            }
            ok(
              explanation.chosen !== undefined || typeof explanation.error === 'string',
              'either a chosen node or the error a client would see',
            );
          }),
      },
      {
        name: `${name}: refuses a container no node can take with a coded error`,
        run: () =>
          withStarted(options, async (cluster) => {
            // a node that does not exist, and more memory than any node has
            const config: ContainerConfig = {
              Image: 'busybox',
              Env: [`constraint:node==no-such-node-${randomBytes(4).toString('hex')}`],
              HostConfig: { Memory: 2 ** 52 },
            };
            const refused = await cluster.createContainer(config, undefined).then(
              () => undefined,
              (error: unknown) => error,
            );
            ok(refused !== undefined, 'createContainer resolved');
            ok(isSwarmError(refused), `the refusal ${String(refused)} is a SwarmError with a code`);
          }),
      },
      {
        name: `${name}: subscribe returns an unsubscribe that may be called twice`,
        run: () =>
          withStarted(options, (cluster) => {
            const unsubscribe = cluster.subscribe(() => undefined);
            strictEqual(typeof unsubscribe, 'function');
            unsubscribe();
            unsubscribe();
          }),
      },
      {
        name: `${name}: offered capabilities are whole`,
        run: async () => {
          const cluster = await options.create();
          for (const [capability, offered] of Object.entries(cluster.capabilities ?? {})) {
            if (offered === undefined) continue;
            const members = CAPABILITY_MEMBERS[capability as keyof ClusterCapabilities];
            ok(members !== undefined, `capability ${capability} is one ClusterCapabilities declares`);
            ok(typeof offered === 'object' && offered !== null, `capability ${capability} is an object`);
            for (const member of members)
              strictEqual(
                typeof (offered as Record<string, unknown>)[member],
                'function',
                `capability ${capability}.${member} is a function`,
              );
          }
        },
      },
      {
        name: `${name}: a container goes through create, start and remove`,
        run: () =>
          withStarted(options, async (cluster) => {
            if (!options.runnable) return;
            const containerName = `conformance-${randomBytes(4).toString('hex')}`;
            const created = await cluster.createContainer(options.runnable, containerName);
            try {
              assertContainer(created, cluster);
              strictEqual(created.name, containerName, 'the created container has the name asked for');
              strictEqual(cluster.container(containerName)?.id, created.id, 'container(name) finds it');
              ok(
                cluster.containers().some((container) => container.id === created.id),
                'containers() lists it',
              );
              await cluster.startContainer(cluster.container(created.id) ?? created);
            } finally {
              await cluster.removeContainer(cluster.container(created.id) ?? created, { force: true });
            }
            strictEqual(cluster.container(created.id), undefined, 'container(id) finds nothing after the removal');
          }),
      },
    ],
    tester,
  );
}
