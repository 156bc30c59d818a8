import { className, type PluginFiles } from './template-parts.js';

/**
 * A cluster driver over a simulated platform: nodes and containers kept in memory, placed by the
 * deployment's scheduler, with events and `docker info` rows. It passes the SDK's driver
 * conformance as it is; an author replaces the in-memory parts with their platform's API calls.
 */
export function driverFiles(name: string): PluginFiles {
  const node = className(name, 'Node');
  const cluster = className(name, 'Cluster');
  return {
    [`src/${name}-node.ts`]: `import type { Container, EngineEndpoint, Image, Node, NodeSnapshot, NodeStatus } from '@swarm/plugin-sdk';
import { readSnapshot, SnapshotVersions } from '@swarm/plugin-sdk/helpers';

/**
 * One node of the platform. Everything here answers from memory (the scheduler reads nodes
 * thousands of times per decision); the cluster keeps \`placed\` up to date and calls
 * \`changed()\` after every change, so the scheduler reads the node's next snapshot.
 */
export class ${node} implements Node {
  readonly ip = '127.0.0.1';
  readonly addr: string;
  readonly placed: Container[] = [];
  private readonly versions = new SnapshotVersions();

  constructor(
    readonly id: string,
    readonly name: string,
    private readonly size: { cpus: number; memory: number },
  ) {
    this.addr = \`${name}://\${name}\`;
  }

  images(): readonly Image[] {
    return [];
  }
  image(): Image | undefined {
    return undefined;
  }
  containers(): readonly Container[] {
    return this.placed;
  }
  container(idOrName: string): Container | undefined {
    return this.placed.find((container) => container.id === idOrName || container.name === idOrName);
  }
  totalCpus(): number {
    return this.size.cpus;
  }
  usedCpus(): number {
    return this.placed.reduce((sum, container) => sum + (container.reservedCpus ?? 0), 0);
  }
  totalMemory(): number {
    return this.size.memory;
  }
  usedMemory(): number {
    return this.placed.reduce((sum, container) => sum + (container.config.HostConfig?.Memory ?? 0), 0);
  }
  labels(): Readonly<Record<string, string>> {
    return { provider: '${name}' };
  }
  status(): NodeStatus {
    return 'healthy';
  }
  isHealthy(): boolean {
    return true;
  }
  healthIndicator(): number {
    return 100;
  }
  lastError(): string | undefined {
    return undefined;
  }
  /** No Docker engine behind this node: the verbs the API front proxies (logs, exec) are not offered. */
  endpoint(): EngineEndpoint | undefined {
    return undefined;
  }
  /** What the node answers, kept until \`changed()\`: the scheduler reads nodes through it. */
  snapshot(): NodeSnapshot {
    return this.versions.current((version) => readSnapshot(this, version));
  }
  /** The scheduler reads the node again only after a call: \`changed()\` makes them. */
  watch(listener: () => void): () => void {
    return this.versions.watch(listener);
  }
  changed(): void {
    this.versions.changed();
  }
}
`,
    [`src/${name}-cluster.ts`]: `import { randomBytes } from 'node:crypto';
import {
  ErrorCodes,
  SwarmError,
  type Cluster,
  type ClusterEvent,
  type ClusterInfo,
  type Container,
  type DeploymentConfig,
  type Node,
  type PlacementExplanation,
  type RemoveContainerOptions,
  type Scheduler,
} from '@swarm/plugin-sdk';
import type { ContainerConfig } from '@swarm/plugin-sdk/docker';
import { eventNode, nodeInfoRows, requestedCpus } from '@swarm/plugin-sdk/helpers';
import { ${node} } from './${name}-node.js';

export interface ${cluster}Deps {
  config: DeploymentConfig;
  scheduler: Scheduler;
}

const GiB = 1024 ** 3;

/**
 * The "${name}" driver. Nodes come from \`--cluster-opt ${name}.nodes=N\` (default 2, 2 CPUs and
 * 2 GiB each) and containers live in memory: replace both with your platform's API calls.
 * Placement goes through the deployment's scheduler, so users keep their filters and strategy.
 */
export class ${cluster} implements Cluster {
  readonly driverName = '${name}';
  private readonly nodeList: ${node}[] = [];
  private readonly listeners = new Set<(event: ClusterEvent) => void>();
  private readonly startedAt = new Date();

  constructor(private readonly deps: ${cluster}Deps) {}

  async start(): Promise<void> {
    const raw = this.deps.config.cluster.options['${name}.nodes'] ?? '2';
    const count = Number(raw);
    if (!Number.isInteger(count) || count < 0)
      throw new SwarmError(ErrorCodes.CONFIG_INVALID, \`cluster.options["${name}.nodes"]: "\${raw}" is not a node count (for example 3)\`);
    this.nodeList.length = 0;
    for (let index = 1; index <= count; index++)
      this.nodeList.push(new ${node}(\`${name}-\${index}\`, \`${name}\${index}\`, { cpus: 2, memory: 2 * GiB }));
  }

  async stop(): Promise<void> {
    this.listeners.clear();
  }

  nodes(): readonly Node[] {
    return this.nodeList;
  }

  async createContainer(config: ContainerConfig, name: string | undefined): Promise<Container> {
    if (name !== undefined && this.container(name))
      throw new SwarmError(
        ErrorCodes.NAME_IN_USE,
        \`Conflict: The name \${name} is already assigned. You have to delete (or rename) that container to be able to assign \${name} to a container again.\`,
      );
    const request = this.deps.scheduler.request(config, name);
    const chosen = this.deps.scheduler.select(request, this.nodeList).ranked[0]!.node;
    const node = this.nodeList.find((candidate) => candidate.id === chosen.id)!;
    const id = randomBytes(32).toString('hex');
    const containerName = name ?? \`\${node.name}-\${id.slice(0, 12)}\`;
    const container = this.record(node, { id, name: containerName, config: request.config, state: 'created' });
    node.placed.push(container);
    node.changed();
    this.emit('create', container);
    return container;
  }

  async startContainer(container: Container): Promise<void> {
    const node = this.nodeOf(container);
    const index = node.placed.findIndex((placed) => placed.id === container.id);
    node.placed[index] = this.record(node, { ...container, state: 'running' });
    node.changed();
    this.emit('start', container);
  }

  async removeContainer(container: Container, options: RemoveContainerOptions = {}): Promise<void> {
    const node = this.nodeOf(container);
    const current = node.container(container.id)!;
    if (current.state === 'running' && !options.force)
      throw new SwarmError(
        ErrorCodes.CONFLICT,
        \`You cannot remove a running container \${container.id}. Stop the container before attempting removal or force remove\`,
      );
    node.placed.splice(node.placed.indexOf(current), 1);
    node.changed();
    this.emit('destroy', current);
  }

  containers(): readonly Container[] {
    return this.nodeList.flatMap((node) => node.placed);
  }

  container(idOrName: string): Container | undefined {
    const bare = idOrName.replace(/^\\//, '');
    for (const node of this.nodeList) {
      const found = node.container(bare) ?? (bare.startsWith(\`\${node.name}/\`) ? node.container(bare.slice(node.name.length + 1)) : undefined);
      if (found) return found;
    }
    const byPrefix = this.containers().filter((container) => bare.length >= 4 && container.id.startsWith(bare));
    return byPrefix.length === 1 ? byPrefix[0] : undefined;
  }

  explain(config: ContainerConfig): PlacementExplanation {
    return this.deps.scheduler.explain(this.deps.scheduler.request(config), this.nodeList);
  }

  info(): ClusterInfo {
    const containers = this.containers();
    const running = containers.filter((container) => container.state === 'running').length;
    const systemStatus: Array<[string, string]> = [
      ['Strategy', this.deps.scheduler.strategyName],
      ['Filters', this.deps.scheduler.filterNames.join(', ')],
      ['Nodes', String(this.nodeList.length)],
    ];
    for (const node of this.nodeList) {
      const own = node.placed.filter((container) => container.state === 'running').length;
      systemStatus.push(
        ...nodeInfoRows(node.snapshot(), {
          id: node.id,
          containers: { total: node.placed.length, running: own, paused: 0, stopped: node.placed.length - own },
          updatedAt: this.startedAt,
          serverVersion: '${name} 0.1.0',
        }),
      );
    }
    return {
      systemStatus,
      ncpu: this.nodeList.reduce((sum, node) => sum + node.totalCpus(), 0),
      memTotal: this.nodeList.reduce((sum, node) => sum + node.totalMemory(), 0),
      containers: containers.length,
      containersRunning: running,
      containersPaused: 0,
      containersStopped: containers.length - running,
      images: 0,
      driver: this.driverName,
    };
  }

  subscribe(listener: (event: ClusterEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private nodeOf(container: Container): ${node} {
    const node = this.nodeList.find((candidate) => candidate.id === container.node.id);
    if (!node?.container(container.id)) throw new SwarmError(ErrorCodes.NOT_FOUND, \`No such container: \${container.id}\`);
    return node;
  }

  private record(node: ${node}, fields: { id: string; name: string; config: ContainerConfig; state: string }): Container {
    const created = Math.floor(Date.now() / 1000);
    const labels = fields.config.Labels ?? {};
    return {
      id: fields.id,
      name: fields.name,
      names: [\`/\${fields.name}\`],
      image: fields.config.Image,
      imageId: '',
      state: fields.state,
      labels,
      reservedCpus: requestedCpus(fields.config),
      config: fields.config,
      summary: {
        Id: fields.id,
        // engine-style names: the API front shows them as node/name, as Swarm classic does
        Names: [\`/\${fields.name}\`],
        Image: fields.config.Image,
        Command: (fields.config.Cmd ?? []).join(' '),
        Created: created,
        State: fields.state,
        Status: fields.state === 'running' ? 'Up Less than a second' : 'Created',
        Labels: labels,
      },
      node,
    };
  }

  private emit(action: string, container: Container): void {
    const time = Math.floor(Date.now() / 1000);
    const event: ClusterEvent = {
      Type: 'container',
      Action: action,
      status: action,
      id: container.id,
      from: container.image,
      time,
      timeNano: time * 1e9,
      node: eventNode(container.node),
    };
    for (const listener of this.listeners) listener(event);
  }
}
`,
    [`test/${name}.test.ts`]: `import { describe, expect, it } from 'vitest';
import { Tokens, type Cluster } from '@swarm/plugin-sdk';
import { driverConformance, pluginProviders, testDeployment, testScheduler } from '@swarm/plugin-sdk/testing';
import { plugin } from '../dist/index.js';

const build = (options: Record<string, string> = {}) =>
  pluginProviders(plugin, {
    [Tokens.DeploymentConfig]: testDeployment({ driver: '${name}', options }),
    [Tokens.Scheduler]: testScheduler(),
  }).get<Cluster>(Tokens.ClusterDriver, '${name}');

describe('${name} driver', () => {
  driverConformance({ name: '${name}', create: () => build(), minNodes: 2, runnable: { Image: 'busybox', Cmd: ['sleep', '30'] } }, { it });

  it('places containers on its nodes and reports them in info', async () => {
    const cluster = build({ '${name}.nodes': '3' });
    await cluster.start();
    const web = await cluster.createContainer({ Image: 'nginx', HostConfig: { Memory: 1024 ** 3 } }, 'web');
    await cluster.startContainer(web);
    expect(cluster.container('web')?.state).toBe('running');
    expect(cluster.info().containersRunning).toBe(1);
    await expect(cluster.createContainer({ Image: 'nginx' }, 'web')).rejects.toThrow('is already assigned');
    await cluster.stop();
  });

  it('refuses a node count that is not one, naming the option', async () => {
    await expect(build({ '${name}.nodes': 'many' }).start()).rejects.toThrow('cluster.options["${name}.nodes"]');
  });
});
`,
  };
}
