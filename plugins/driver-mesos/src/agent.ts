import type { Container, EngineEndpoint, Image, Logger, Network, Node, NodeSnapshot, NodeStatus, Volume } from '@swarm/plugin-sdk';
import type { ContainerSummary, DockerEvent, ImageSummary, NetworkSummary, VolumeSummary } from '@swarm/plugin-sdk/docker';
import {
  EngineClient,
  engineLabels,
  readSnapshot,
  SnapshotVersions,
  type EngineInfoLabels,
  type EngineTls,
} from '@swarm/plugin-sdk/helpers';
import { EngineEventFeed } from './engine-event-feed.js';
import { engineImage, engineNetwork, engineVolume, findByIdOrName, taskContainer } from './engine-objects.js';
import { MesosLabels } from './labels.js';
import type { Attribute, Offer } from './protocol.js';
import { scalarSum } from './resources.js';

const DOCKER_PORT_ATTRIBUTE = 'docker_port';
/** Longer than any engine read takes, shorter than an ID could come back (it never does). */
const REMOVED_MEMORY_MS = 30_000;

function attributeText(attribute: Attribute): string {
  if (attribute.text) return attribute.text.value;
  if (attribute.scalar) return String(attribute.scalar.value);
  if (attribute.ranges) return attribute.ranges.range.map((range) => `${range.begin}-${range.end}`).join(',');
  if (attribute.set) return attribute.set.item.join(',');
  return '';
}

export interface MesosAgentDeps {
  readonly offer: Offer;
  readonly tls: EngineTls | undefined;
  readonly onEvent: (agent: MesosAgent, event: DockerEvent) => void;
  readonly logger: Logger;
}

/**
 * A Mesos agent as a scheduler `Node`: its resources are what it currently offers, its labels
 * its attributes (plus its engine's labels), and its containers come from its Docker engine,
 * which the driver reads directly (the "hybrid" framework).
 */
export class MesosAgent implements Node {
  readonly id: string;
  readonly name: string;
  readonly ip: string;
  readonly addr: string;
  readonly engine: EngineClient;
  readonly events: EngineEventFeed;
  private offers: readonly Offer[] = [];
  private attributeLabels: Record<string, string> = {};
  private engineLabels: Record<string, string> = {};
  private containerList: Container[] = [];
  private imageList: Image[] = [];
  private networkList: Network[] = [];
  private volumeList: Volume[] = [];
  private error: string | undefined;
  private refreshed = false;
  private readonly removed = new Map<string, number>();
  /** Every change below calls `versions.changed()`: the scheduler reads the agent through its snapshots. */
  private readonly versions = new SnapshotVersions();

  constructor({ offer, tls, onEvent, logger }: MesosAgentDeps) {
    this.id = offer.agent_id.value;
    this.name = offer.hostname;
    this.ip = offer.url?.address.ip ?? offer.hostname;
    const portAttribute = offer.attributes?.find((attribute) => attribute.name === DOCKER_PORT_ATTRIBUTE);
    const port = portAttribute ? Number(attributeText(portAttribute)) : tls ? 2376 : 2375;
    this.addr = `${this.ip}:${port}`;
    this.engine = new EngineClient(tls ? { protocol: 'https', host: this.ip, port, tls } : { protocol: 'http', host: this.ip, port });
    this.events = new EngineEventFeed({ engine: this.engine, onEvent: (event) => onEvent(this, event), logger });
    this.setAttributes(offer.attributes ?? []);
  }

  setOffers(offers: readonly Offer[]): void {
    this.offers = offers;
    const latest = offers[offers.length - 1];
    if (latest?.attributes) this.setAttributes(latest.attributes);
    this.versions.changed();
  }

  currentOffers(): readonly Offer[] {
    return this.offers;
  }

  private setAttributes(attributes: readonly Attribute[]): void {
    const labels: Record<string, string> = {};
    for (const attribute of attributes) labels[attribute.name] = attributeText(attribute);
    this.attributeLabels = labels;
    this.versions.changed();
  }

  /** Re-read containers, images, networks and volumes from the agent's engine. */
  async refresh(): Promise<void> {
    try {
      const [info, containers, images, networks, volumes] = await Promise.all([
        this.engine.json<EngineInfoLabels>({ path: '/info' }),
        this.engine.json<ContainerSummary[]>({ path: '/containers/json', query: { all: 1 } }),
        this.engine.json<ImageSummary[]>({ path: '/images/json' }),
        this.engine.json<NetworkSummary[]>({ path: '/networks' }),
        this.engine.json<{ Volumes: VolumeSummary[] | null }>({ path: '/volumes' }),
      ]);
      this.engineLabels = engineLabels(info);
      this.containerList = containers
        .filter((summary) => summary.Labels?.[MesosLabels.task] !== undefined && !this.wasRemoved(summary.Id))
        .map((summary) => taskContainer(summary, this));
      this.imageList = images.map((summary) => engineImage(summary, this));
      this.networkList = networks.map((summary) => engineNetwork(summary, this));
      this.volumeList = (volumes.Volumes ?? []).map((summary) => engineVolume(summary, this));
      this.error = undefined;
      this.refreshed = true;
    } catch (error) {
      this.error = `engine ${this.addr}: ${(error as Error).message}`;
    }
    this.versions.changed();
  }

  /**
   * Drops a container this manager removed. A read of the engine that was in flight (the periodic
   * refresh) may still list it, so it stays out of reads for a while.
   */
  forget(containerId: string): void {
    this.removed.set(containerId, Date.now() + REMOVED_MEMORY_MS);
    this.containerList = this.containerList.filter((container) => container.id !== containerId);
    this.versions.changed();
  }

  private wasRemoved(containerId: string): boolean {
    const until = this.removed.get(containerId);
    if (until === undefined) return false;
    if (until > Date.now()) return true;
    this.removed.delete(containerId);
    return false;
  }

  images(): readonly Image[] {
    return this.imageList;
  }

  image(idOrName: string): Image | undefined {
    const withTag = idOrName.includes(':') ? idOrName : `${idOrName}:latest`;
    return (
      this.imageList.find((image) => image.repoTags.includes(withTag) || image.repoTags.includes(idOrName)) ??
      findByIdOrName(this.imageList, idOrName)
    );
  }

  containers(): readonly Container[] {
    return this.containerList;
  }

  container(idOrName: string): Container | undefined {
    return findByIdOrName(this.containerList, idOrName);
  }

  networks(): readonly Network[] {
    return this.networkList;
  }

  volumes(): readonly Volume[] {
    return this.volumeList;
  }

  totalCpus(): number {
    return scalarSum(this.offers, 'cpus');
  }

  usedCpus(): number {
    return 0;
  }

  totalMemory(): number {
    return scalarSum(this.offers, 'mem') * 1024 * 1024;
  }

  usedMemory(): number {
    return 0;
  }

  labels(): Readonly<Record<string, string>> {
    return { ...this.engineLabels, ...this.attributeLabels };
  }

  status(): NodeStatus {
    if (this.error) return 'unhealthy';
    return this.refreshed ? 'healthy' : 'pending';
  }

  isHealthy(): boolean {
    return this.error === undefined;
  }

  healthIndicator(): number {
    return this.error === undefined ? 100 : 0;
  }

  lastError(): string | undefined {
    return this.error;
  }

  endpoint(): EngineEndpoint {
    return this.engine.endpoint;
  }

  snapshot(): NodeSnapshot {
    return this.versions.current((version) => readSnapshot(this, version));
  }

  watch(listener: () => void): () => void {
    return this.versions.watch(listener);
  }
}
