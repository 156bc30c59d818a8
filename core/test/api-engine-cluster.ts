import { request } from 'node:http';
import type { Readable } from 'node:stream';
import {
  ErrorCodes,
  SwarmError,
  type Cluster,
  type ClusterCapabilities,
  type ClusterEvent,
  type ClusterInfo,
  type Container,
  type EngineEndpoint,
  type Image,
  type Network,
  type Node,
  type PlacementExplanation,
  type ProgressListener,
  type Volume,
} from '@swarm/plugin-sdk';
import type {
  AuthConfig,
  ContainerConfig,
  ContainerSummary,
  ImageRemoval,
  ImageSummary,
  NetworkCreateRequest,
  NetworkSummary,
  VolumeCreateRequest,
  VolumeSummary,
} from '@swarm/plugin-sdk/docker';
import { readSnapshot, SnapshotVersions } from '@swarm/plugin-sdk/helpers';

/**
 * A one-engine Cluster over a REAL dockerd, its operations methods offered as capabilities, for
 * testing the API front independently of the swarm driver: every answer comes from the engine itself.
 */
interface Answer {
  status: number;
  body: unknown;
}

function call(endpoint: EngineEndpoint, method: string, path: string, body?: unknown): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      { host: endpoint.host, port: endpoint.port, method, path, headers: payload ? { 'content-type': 'application/json' } : {} },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          let parsed: unknown = text;
          try {
            parsed = text ? JSON.parse(text) : undefined;
          } catch {
            // plain text
          }
          resolve({ status: res.statusCode ?? 0, body: parsed });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

async function ok(answer: Promise<Answer>): Promise<unknown> {
  const { status, body } = await answer;
  if (status >= 300) {
    const message = (body as { message?: string } | undefined)?.message ?? String(body);
    if (status === 404) throw new SwarmError(ErrorCodes.NOT_FOUND, message);
    throw Object.assign(new Error(message), { code: 'SWARM_ERR_ENGINE', httpStatus: status });
  }
  return body;
}

export class EngineCluster implements Cluster {
  readonly driverName = 'test-engine';
  private containerList: Container[] = [];
  private imageList: Image[] = [];
  private volumeList: Volume[] = [];
  private networkList: Network[] = [];
  private listeners = new Set<(event: ClusterEvent) => void>();
  private eventsRequest: ReturnType<typeof request> | undefined;
  readonly node: Node;
  private health = true;
  /** Every refresh and health change gives the node a new snapshot. */
  private readonly versions = new SnapshotVersions();

  constructor(
    readonly endpoint: EngineEndpoint,
    name: string,
  ) {
    this.node = {
      id: `id-${name}`,
      name,
      ip: endpoint.host,
      addr: `${endpoint.host}:${endpoint.port}`,
      images: () => this.imageList,
      image: (ref) => this.image(ref),
      containers: () => this.containerList,
      container: (ref) => this.container(ref),
      totalCpus: () => 2,
      usedCpus: () => 0,
      totalMemory: () => 2 ** 30,
      usedMemory: () => 0,
      labels: () => ({ storagedriver: 'vfs' }),
      status: () => (this.healthy ? 'healthy' : 'unhealthy'),
      isHealthy: () => this.healthy,
      healthIndicator: () => 100,
      lastError: () => undefined,
      endpoint: () => endpoint,
      snapshot: () => this.versions.current((version) => readSnapshot(this.node, version)),
      watch: (listener) => this.versions.watch(listener),
    };
  }

  readonly capabilities: ClusterCapabilities = {
    images: { list: () => this.images(), find: (name) => this.image(name) },
    imagePull: { pull: (reference, auth, onProgress) => this.pullImage(reference, auth, onProgress) },
    imageManagement: {
      importFrom: () => this.importImage(),
      load: (body) => this.loadImage(body),
      tag: (name, repository, tag) => this.tagImage(name, repository, tag),
      remove: (name, force) => this.removeImages(name, force),
    },
    volumes: { list: () => this.volumes(), find: (name) => this.volume(name) },
    volumeManagement: { create: (request) => this.createVolume(request), remove: (name, force) => this.removeVolume(name, force) },
    networks: { list: () => this.networks(), find: (name) => this.network(name) },
    networkManagement: { create: (request) => this.createNetwork(request), remove: (network) => this.removeNetwork(network) },
    builds: { place: () => this.placeBuild() },
    enginePlugins: { nodes: () => this.nodes() },
    containerRename: { rename: (container, newName) => this.renameContainer(container, newName) },
  };

  async start(): Promise<void> {
    await this.refresh();
    await new Promise<void>((resolve) => {
      this.eventsRequest = request({ host: this.endpoint.host, port: this.endpoint.port, path: '/events' }, (res) => {
        resolve();
        let buffered = '';
        res.on('data', (chunk: Buffer) => {
          buffered += chunk.toString();
          let newline: number;
          while ((newline = buffered.indexOf('\n')) >= 0) {
            const event = JSON.parse(buffered.slice(0, newline)) as ClusterEvent;
            buffered = buffered.slice(newline + 1);
            void this.refresh().then(() => {
              const withNode = { ...event, node: { Name: this.node.name, Id: this.node.id, Addr: this.node.addr, Ip: this.node.ip } };
              for (const listener of this.listeners) listener(withNode);
            });
          }
        });
      });
      this.eventsRequest.on('error', () => undefined);
      this.eventsRequest.end();
    });
  }

  async stop(): Promise<void> {
    this.eventsRequest?.destroy();
  }

  /** Whether the engine counts as healthy (a test turns it off); a change is a new snapshot. */
  get healthy(): boolean {
    return this.health;
  }

  set healthy(value: boolean) {
    this.health = value;
    this.versions.changed();
  }

  async refresh(): Promise<void> {
    await this.readEngine();
    this.versions.changed();
  }

  private async readEngine(): Promise<void> {
    const [containers, images, volumes, networks] = await Promise.all([
      ok(call(this.endpoint, 'GET', '/containers/json?all=1')) as Promise<ContainerSummary[]>,
      ok(call(this.endpoint, 'GET', '/images/json')) as Promise<ImageSummary[]>,
      ok(call(this.endpoint, 'GET', '/volumes')) as Promise<{ Volumes: VolumeSummary[] | null }>,
      ok(call(this.endpoint, 'GET', '/networks')) as Promise<NetworkSummary[]>,
    ]);
    this.containerList = containers.map((summary) => ({
      id: summary.Id,
      name: (summary.Names[0] ?? '').replace(/^\//, ''),
      names: summary.Names,
      image: summary.Image,
      imageId: summary.ImageID ?? '',
      state: summary.State ?? 'created',
      labels: summary.Labels ?? {},
      config: { Image: summary.Image, Labels: summary.Labels ?? {} },
      summary,
      node: this.node,
    }));
    this.imageList = images.map((summary) => ({
      id: summary.Id,
      repoTags: summary.RepoTags ?? [],
      repoDigests: summary.RepoDigests ?? [],
      summary,
      node: this.node,
    }));
    this.volumeList = (volumes.Volumes ?? []).map((summary) => ({ name: summary.Name, driver: summary.Driver, summary, node: this.node }));
    this.networkList = networks.map((summary) => ({
      id: summary.Id,
      name: summary.Name,
      scope: String(summary.Scope ?? 'local'),
      summary,
      node: this.node,
    }));
  }

  nodes(): readonly Node[] {
    return [this.node];
  }

  async createContainer(config: ContainerConfig, name: string | undefined): Promise<Container> {
    const body = (await ok(call(this.endpoint, 'POST', `/containers/create${name ? `?name=${name}` : ''}`, config))) as { Id: string };
    await this.refresh();
    return this.container(body.Id)!;
  }

  async startContainer(container: Container): Promise<void> {
    await ok(call(this.endpoint, 'POST', `/containers/${container.id}/start`));
    await this.refresh();
  }

  async removeContainer(container: Container, options: { force?: boolean; volumes?: boolean } = {}): Promise<void> {
    await ok(call(this.endpoint, 'DELETE', `/containers/${container.id}?force=${options.force ? 1 : 0}&v=${options.volumes ? 1 : 0}`));
    await this.refresh();
  }

  async renameContainer(container: Container, newName: string): Promise<void> {
    await ok(call(this.endpoint, 'POST', `/containers/${container.id}/rename?name=${newName}`));
    await this.refresh();
  }

  containers(): readonly Container[] {
    return this.containerList;
  }

  container(ref: string): Container | undefined {
    const bare = ref.replace(/^\//, '').replace(new RegExp(`^${this.node.name}/`), '');
    return (
      this.containerList.find((c) => c.id === bare || c.name === bare) ??
      this.containerList.find((c) => bare.length >= 3 && c.id.startsWith(bare))
    );
  }

  images(): readonly Image[] {
    return this.imageList;
  }

  image(ref: string): Image | undefined {
    const withTag = ref.includes(':') && !ref.startsWith('sha256:') ? ref : `${ref}:latest`;
    return this.imageList.find(
      (image) => image.id === ref || image.id === `sha256:${ref}` || image.repoTags.includes(withTag) || image.repoTags.includes(ref),
    );
  }

  async pullImage(reference: string, _auth: AuthConfig | undefined, onProgress: ProgressListener): Promise<void> {
    onProgress(this.node, { status: `Pulling ${reference}` });
    await ok(call(this.endpoint, 'POST', `/images/create?fromImage=${encodeURIComponent(reference)}`));
    await this.refresh();
  }

  async importImage(): Promise<void> {
    throw new Error('import is not used by these tests');
  }

  async loadImage(_body: Readable): Promise<void> {
    throw new Error('load is not used by these tests');
  }

  async tagImage(ref: string, repository: string, tag: string): Promise<void> {
    await ok(call(this.endpoint, 'POST', `/images/${ref}/tag?repo=${repository}&tag=${tag}`));
    await this.refresh();
  }

  async removeImages(ref: string, force: boolean): Promise<ImageRemoval[]> {
    if (!this.image(ref)) return [];
    const removed = (await ok(call(this.endpoint, 'DELETE', `/images/${ref}?force=${force ? 1 : 0}`))) as ImageRemoval[];
    await this.refresh();
    return removed;
  }

  volumes(): readonly Volume[] {
    return this.volumeList;
  }

  volume(name: string): Volume | undefined {
    const bare = name.replace(new RegExp(`^${this.node.name}/`), '');
    return this.volumeList.find((volume) => volume.name === bare);
  }

  async createVolume(request: VolumeCreateRequest): Promise<Volume> {
    const summary = (await ok(call(this.endpoint, 'POST', '/volumes/create', request))) as VolumeSummary;
    await this.refresh();
    return this.volume(summary.Name)!;
  }

  async removeVolume(name: string, force: boolean): Promise<void> {
    const volume = this.volume(name);
    if (!volume) throw new SwarmError(ErrorCodes.NOT_FOUND, `no such volume: ${name}`);
    await ok(call(this.endpoint, 'DELETE', `/volumes/${volume.name}?force=${force ? 1 : 0}`));
    await this.refresh();
  }

  networks(): readonly Network[] {
    return this.networkList;
  }

  network(ref: string): Network | undefined {
    const bare = ref.replace(new RegExp(`^${this.node.name}/`), '');
    return this.networkList.find(
      (network) => network.id === bare || network.name === bare || (bare.length >= 3 && network.id.startsWith(bare)),
    );
  }

  async createNetwork(request: NetworkCreateRequest): Promise<Network> {
    const body = (await ok(call(this.endpoint, 'POST', '/networks/create', request))) as { Id: string };
    await this.refresh();
    return this.network(body.Id)!;
  }

  async removeNetwork(network: Network): Promise<void> {
    await ok(call(this.endpoint, 'DELETE', `/networks/${network.id}`));
    await this.refresh();
  }

  async placeBuild(): Promise<Node> {
    return this.node;
  }

  explain(config: ContainerConfig): PlacementExplanation {
    return {
      strategy: 'test',
      filters: [],
      softDropped: false,
      nodes: [],
      chosen: this.node.name,
      summary: `1/1 nodes are available for ${config.Image}`,
    };
  }

  info(): ClusterInfo {
    const running = this.containerList.filter((c) => c.state === 'running').length;
    return {
      systemStatus: [
        ['Role', 'primary'],
        ['Strategy', 'test'],
        ['Filters', ''],
        ['Nodes', '1'],
        [` ${this.node.name}`, this.node.addr],
      ],
      ncpu: 2,
      memTotal: 2 ** 30,
      containers: this.containerList.length,
      containersRunning: running,
      containersPaused: 0,
      containersStopped: this.containerList.length - running,
      images: this.imageList.length,
      driver: this.driverName,
    };
  }

  subscribe(listener: (event: ClusterEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
