import { randomBytes } from 'node:crypto';
import type * as k8s from '@kubernetes/client-node';
import type {
  Cluster,
  ClusterCapabilities,
  ClusterRole,
  ClusterEvent,
  ClusterInfo,
  Container,
  DeploymentConfig,
  Logger,
  Node,
  PlacementExplanation,
  RemoveContainerOptions,
  Scheduler,
} from '@swarm/plugin-sdk';
import type { AuthConfig, ContainerConfig } from '@swarm/plugin-sdk/docker';
import { reschedulePolicy } from '@swarm/plugin-sdk/helpers';
import { containerEvent, transitionEvents } from './container-events.js';
import { KubernetesErrors } from './errors.js';
import { EngineEmulator } from './engine-emulator/engine-emulator.js';
import { infoRows } from './info-rows.js';
import { KubeApi, loadKubeConfig } from './kube-api.js';
import { KubeNode, type KubeNodeHost } from './kube-node.js';
import { PodMarks } from './labels.js';
import { parseKubernetesOptions, type KubernetesOptions } from './options.js';
import type { PodContainer } from './pod-container.js';
import { PodControl } from './pod-control.js';
import { PodIndex } from './pod-index.js';
import { generatedName, podNameFor } from './pod-names.js';
import { buildPod, claimNameFor, randomPortRequests } from './pod-spec.js';
import { ResourceWatch } from './resource-watch.js';
import { schedulableView } from './schedulable-view.js';
import { NetworkAliases } from './network-aliases.js';
import { aliasLabel, answeringNames, encodeMemberships, isUserDefined, labelledNames, membershipsAtCreate } from './network-membership.js';
import { deferredPulls, imageInspect } from './node-images.js';

const FIRST_LIST_WAIT_MS = 10_000;
/** A Service this young may be for a container the previous primary was still making: the sweep leaves it. */
const SWEEP_GRACE_MS = 5_000;
const AUTO_REMOVE_WAIT_MS = 30_000;
const HOST_PORT_FIRST = 32768;
const HOST_PORT_LAST = 60999;

export interface KubernetesClusterDeps {
  config: DeploymentConfig;
  scheduler: Scheduler;
  logger: Logger;
  env?: Readonly<Record<string, string | undefined>>;
}

/**
 * The "kubernetes" driver: every Kubernetes Node is a swarm node and every docker container one
 * pod, placed by swarm's own filters and strategy and bound to the chosen node. It talks only to
 * the API server: container verbs the Docker API proxies to an engine (inspect, logs, exec,
 * attach, stop, wait) are served by an engine emulator in this process (engine-emulator/), over the pods API.
 */
export class KubernetesCluster implements Cluster {
  readonly driverName = 'kubernetes';
  readonly capabilities: ClusterCapabilities;
  private readonly options: KubernetesOptions;
  private readonly logger: Logger;
  private readonly scheduler: Scheduler;
  private readonly kubeConfig: k8s.KubeConfig;
  readonly api: KubeApi;
  private readonly nodeMap = new Map<string, KubeNode>();
  private readonly ghostNodes = new Map<string, KubeNode>();
  private readonly index: PodIndex;
  readonly control: PodControl;
  private readonly engineEmulator: EngineEmulator;
  private readonly aliases: NetworkAliases;
  private readonly listeners = new Set<(event: ClusterEvent) => void>();
  private readonly pendingNames = new Set<string>();
  private readonly autoRemoving = new Set<string>();
  private role: ClusterRole = 'primary';
  private nodeWatch: ResourceWatch<k8s.V1Node> | undefined;
  private podWatch: ResourceWatch<k8s.V1Pod> | undefined;
  /** Each watch's last failure: the API is usable only when none has one (one answering does not clear the other's). */
  private readonly watchErrors = new Map<'nodes' | 'pods', string | undefined>([
    ['nodes', 'connecting'],
    ['pods', 'connecting'],
  ]);
  private podsListed = false;
  private started = false;
  private swept = false;
  private readonly nodeHost: KubeNodeHost;

  constructor(deps: KubernetesClusterDeps) {
    this.logger = deps.logger.child({ driver: 'kubernetes' });
    this.scheduler = deps.scheduler;
    this.options = parseKubernetesOptions(deps.config.cluster.options, deps.config.cluster.discovery);
    this.kubeConfig = loadKubeConfig(this.options, deps.env ?? process.env);
    this.api = new KubeApi(this.kubeConfig, this.options.namespace);
    this.index = new PodIndex((pod) => this.nodeOfPod(pod));
    this.control = new PodControl({
      api: this.api,
      index: this.index,
      logger: this.logger,
      emit: (container, action, extra) => this.publish(containerEvent(container, action, extra)),
    });
    this.engineEmulator = new EngineEmulator({
      cluster: this,
      config: this.kubeConfig,
      namespace: this.options.namespace,
      logger: this.logger,
    });
    this.aliases = new NetworkAliases(this.api, this.logger);
    this.nodeHost = {
      containersOn: (node) => this.index.onNode(node.name),
      containerOn: (node, idOrName) => this.index.findOn(node.name, idOrName),
      endpoint: () => this.engineEmulator.endpoint(),
    };
    this.capabilities = {
      images: {
        list: () => this.nodes().flatMap((node) => node.images()),
        find: (idOrName) => {
          for (const node of this.nodes()) {
            const image = node.image(idOrName);
            if (image) return image;
          }
          return undefined;
        },
      },
      imagePull: deferredPulls(() => this.nodes()),
      networks: this.aliases.inventory(() => this.nodes()),
      networkManagement: this.aliases.management(() => this.nodes()),
    };
  }

  async start(): Promise<void> {
    await this.engineEmulator.start();
    await this.aliases
      .load()
      .catch((error: Error) => this.logger.warn({ err: error.message }, 'kubernetes: cannot read the network records'));
    this.nodeWatch = new ResourceWatch<k8s.V1Node>({
      config: this.kubeConfig,
      target: { path: '/api/v1/nodes', list: () => this.api.listNodes() },
      handlers: {
        replaced: (nodes) => this.replaceNodes(nodes),
        changed: (type, node) => this.onNode(type, node),
        health: (error) => this.setWatchError('nodes', error),
      },
      logger: this.logger,
    });
    this.podWatch = new ResourceWatch<k8s.V1Pod>({
      config: this.kubeConfig,
      target: {
        path: `/api/v1/namespaces/${this.options.namespace}/pods`,
        labelSelector: `${PodMarks.managed}=true`,
        list: () => this.api.listPods(`${PodMarks.managed}=true`),
      },
      handlers: {
        replaced: (pods) => this.replacePods(pods),
        changed: (type, pod) => this.onPod(type, pod),
        health: (error) => this.setWatchError('pods', error),
      },
      logger: this.logger,
    });
    await Promise.all([this.nodeWatch.start(FIRST_LIST_WAIT_MS), this.podWatch.start(FIRST_LIST_WAIT_MS)]);
    this.started = true;
    this.sweepAliasServices();
    if (this.apiError) this.logger.warn({ server: this.api.server, err: this.apiError }, 'kubernetes: the API server cannot be used yet');
    else
      this.logger.info({ server: this.api.server, nodes: this.nodeMap.size, namespace: this.options.namespace }, 'kubernetes: connected');
  }

  async stop(): Promise<void> {
    this.nodeWatch?.stop();
    this.podWatch?.stop();
    await this.engineEmulator.stop();
  }

  /** Why the API server cannot be used (the nodes' watch first), or nothing when both watches are healthy. */
  private get apiError(): string | undefined {
    return this.watchErrors.get('nodes') ?? this.watchErrors.get('pods');
  }

  private setWatchError(watch: 'nodes' | 'pods', error: string | undefined): void {
    if (error === this.watchErrors.get(watch)) return;
    const before = this.apiError;
    this.watchErrors.set(watch, error);
    if (error) this.logger.warn({ server: this.api.server, watch, err: error }, `kubernetes: API server: ${explainApiError(error)}`);
    else if (before && !this.apiError) this.logger.info({ server: this.api.server }, 'kubernetes: API server answers');
  }

  // --- nodes ---------------------------------------------------------------------------------

  private replaceNodes(nodes: readonly k8s.V1Node[]): void {
    const seen = new Set<string>();
    for (const object of nodes) {
      seen.add(object.metadata?.name ?? '');
      this.onNode('MODIFIED', object, false);
    }
    for (const name of [...this.nodeMap.keys()]) if (!seen.has(name)) this.nodeMap.delete(name);
    this.index.rebind();
  }

  /** `rebind`: point the containers at a node that appeared or went (a whole list does it once at the end). */
  private onNode(type: string, object: k8s.V1Node, rebind = true): void {
    const name = object.metadata?.name ?? '';
    if (type === 'DELETED') {
      this.nodeMap.delete(name);
      if (rebind) this.index.rebind();
      return;
    }
    const known = this.nodeMap.get(name);
    if (known) {
      const was = known.status();
      known.update(object);
      if (was !== known.status()) {
        this.logger.info({ node: name, status: known.status(), why: known.lastError() }, 'kubernetes: node status');
        if (known.status() === 'unhealthy') this.rescheduleFrom(known);
      }
      return;
    }
    this.nodeMap.set(name, new KubeNode(object, this.nodeHost));
    this.ghostNodes.delete(name);
    if (rebind) this.index.rebind();
  }

  private nodeOfPod(pod: k8s.V1Pod): KubeNode {
    const name = pod.spec?.nodeName ?? pod.metadata?.annotations?.[PodMarks.node] ?? '';
    const known = this.nodeMap.get(name);
    if (known) return known;
    let ghost = this.ghostNodes.get(name);
    if (!ghost) {
      ghost = new KubeNode(
        { metadata: { name, uid: name }, status: { conditions: [{ type: 'Ready', status: 'Unknown', message: 'node not found' }] } },
        this.nodeHost,
      );
      this.ghostNodes.set(name, ghost);
    }
    return ghost;
  }

  nodes(): readonly KubeNode[] {
    return [...this.nodeMap.values()];
  }

  // --- pods ----------------------------------------------------------------------------------

  private replacePods(pods: readonly k8s.V1Pod[]): void {
    const { added, removed, changed } = this.index.replaceAll(pods);
    if (this.podsListed) {
      for (const container of added) for (const event of transitionEvents(undefined, container)) this.publish(event);
      for (const [before, after] of changed) for (const event of transitionEvents(before, after)) this.publish(event);
      for (const container of removed) this.publish(containerEvent(container, 'destroy'));
    }
    for (const container of removed) void this.releaseNamesOf(container);
    this.podsListed = true;
    for (const container of this.index.all()) this.autoRemove(container);
  }

  private onPod(type: string, pod: k8s.V1Pod): void {
    if (type === 'DELETED') {
      const removed = this.index.remove(pod.metadata?.name ?? '', pod.metadata?.uid);
      if (removed) {
        if (removed.state === 'running') this.publish(containerEvent(removed, 'die', { exitCode: String(removed.dockerState.exitCode) }));
        // a pod deleted for `docker start` comes back under the same docker ID: no destroy for it
        if (!this.control.recreating.has(removed.podName)) {
          this.publish(containerEvent(removed, 'destroy'));
          void this.releaseNamesOf(removed);
        }
      }
      return;
    }
    const { before, after } = this.index.put(pod);
    for (const event of transitionEvents(before, after)) this.publish(event);
    this.autoRemove(after);
  }

  /**
   * Swarm classic's `reschedule:on-node-failure`: when a node stops being Ready, its containers
   * with that policy are placed again by the scheduler and their pods made there (same docker ID
   * and name); the old pod is force-deleted, as nothing on the failed node can confirm its end.
   * A replica leaves this to the primary.
   */
  private rescheduleFrom(node: KubeNode): void {
    if (this.role === 'replica') return;
    for (const container of this.index.onNode(node.name)) {
      if (container.state === 'exited' || container.deleting) continue;
      let policy: string;
      try {
        policy = reschedulePolicy(container.config);
      } catch {
        continue;
      }
      if (policy !== 'on-node-failure') continue;
      const request = this.scheduler.request(container.config, container.name);
      let target: Node | undefined;
      try {
        target = this.scheduler.select(request, this.schedulingNodes()).ranked[0]?.node;
      } catch (error) {
        this.logger.warn({ container: container.name, err: (error as Error).message }, 'kubernetes: no node to reschedule to');
        continue;
      }
      if (!target) continue;
      this.logger.info({ container: container.name, from: node.name, to: target.name }, 'kubernetes: rescheduling after node failure');
      this.control
        .recreate(container, target.name)
        .catch((error: Error) => this.logger.warn({ container: container.name, err: error.message }, 'kubernetes: reschedule failed'));
    }
  }

  setRole(role: ClusterRole): void {
    this.role = role;
    this.sweepAliasServices();
  }

  /**
   * Once per manager, when it is the one making containers (started with the pods listed, and
   * primary): deletes swarm's alias Services no container answers to, left by a manager that
   * stopped between a container's removal and its Service's.
   */
  private sweepAliasServices(): void {
    if (this.swept || !this.started || !this.podsListed || this.role !== 'primary') return;
    this.swept = true;
    this.aliases
      .sweep((name) => this.answered(name), SWEEP_GRACE_MS)
      .then((removed) => {
        if (removed.length > 0) this.logger.info({ services: removed }, 'kubernetes: removed alias Services no container answers to');
      })
      .catch((error: Error) => this.logger.warn({ err: error.message }, 'kubernetes: cannot look for unused alias Services'));
  }

  /** `docker run --rm`: the daemon removes the container once it exits. */
  private autoRemove(container: PodContainer): void {
    if (this.role === 'replica' || container.state !== 'exited' || container.config.HostConfig?.['AutoRemove'] !== true) return;
    if (this.autoRemoving.has(container.podName)) return;
    this.autoRemoving.add(container.podName);
    // an attached `docker run --rm` reads the output to its end before the pod (and its log) goes
    this.control
      .detached(container.podName, AUTO_REMOVE_WAIT_MS)
      .then(() => this.removeContainer(container, { force: true }))
      .catch((error: Error) => this.logger.warn({ pod: container.podName, err: error.message }, 'kubernetes: auto-remove failed'))
      .finally(() => this.autoRemoving.delete(container.podName));
  }

  private publish(event: ClusterEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        this.logger.warn({ err: (error as Error).message }, 'kubernetes: event listener failed');
      }
    }
  }

  private schedulingNodes(): Node[] {
    return this.nodes().map(schedulableView);
  }

  async createContainer(config: ContainerConfig, name: string | undefined, _auth?: AuthConfig): Promise<Container> {
    if (name && (this.index.nameTaken(name) || this.pendingNames.has(name))) throw KubernetesErrors.nameInUse({ name });
    const dockerName = name ?? generatedName((candidate) => this.index.nameTaken(candidate) || this.pendingNames.has(candidate));
    const request = this.scheduler.request(config, name);
    const chosen = this.scheduler.select(request, this.schedulingNodes()).ranked[0]?.node;
    const node = chosen ? this.nodeMap.get(chosen.name) : undefined;
    if (!node) throw KubernetesErrors.noNodeChosen();
    this.pendingNames.add(dockerName);
    const networks = membershipsAtCreate(request.config, dockerName);
    const releaseNames = this.aliases.hold(answeringNames(networks));
    try {
      const id = randomBytes(32).toString('hex');
      const { pod, claims } = buildPod({
        id,
        dockerName,
        podName: podNameFor(dockerName),
        config: request.config,
        node: node.name,
        bindNow: false,
        createdAt: new Date().toISOString(),
        namedVolumes: this.options.namedVolumes,
        hostPorts: this.pickHostPorts(node, randomPortRequests(request.config)),
        networks,
      });
      for (const volume of claims) await this.ensureClaim(volume);
      await this.aliases.ensureServices(answeringNames(networks));
      const created = await this.api.createPod(pod).catch((error: unknown) => {
        if ((error as { details?: { kubernetesStatus?: number } }).details?.kubernetesStatus === 409)
          throw KubernetesErrors.nameInUse({ name: dockerName });
        throw error;
      });
      const { before, after } = this.index.put(created);
      for (const event of transitionEvents(before, after)) this.publish(event);
      this.logger.info({ container: dockerName, pod: after.podName, node: node.name }, 'kubernetes: container created');
      return after;
    } finally {
      this.pendingNames.delete(dockerName);
      releaseNames();
    }
  }

  private async ensureClaim(volume: string): Promise<void> {
    const spec: k8s.V1PersistentVolumeClaimSpec = {
      accessModes: ['ReadWriteOnce'],
      resources: { requests: { storage: this.options.volumeSize } },
    };
    if (this.options.storageClass) spec.storageClassName = this.options.storageClass;
    await this.api
      .createClaim({
        metadata: { name: claimNameFor(volume), labels: { [PodMarks.managed]: 'true' }, annotations: { [PodMarks.name]: volume } },
        spec,
      })
      .catch((error: unknown) => {
        if ((error as { details?: { kubernetesStatus?: number } }).details?.kubernetesStatus !== 409) throw error;
      });
  }

  /** Host ports docker would pick for `-p 80` / `-P`: free ones from the ephemeral range on that node. */
  private pickHostPorts(node: KubeNode, wanted: readonly string[]): Map<string, number> {
    const picked = new Map<string, number>();
    if (wanted.length === 0) return picked;
    const used = new Set<number>();
    for (const container of this.index.onNode(node.name))
      for (const port of container.pod.spec?.containers[0]?.ports ?? []) if (port.hostPort) used.add(port.hostPort);
    let next = HOST_PORT_FIRST + Math.floor(Math.random() * 1000);
    for (const key of wanted) {
      while (used.has(next)) next = next >= HOST_PORT_LAST ? HOST_PORT_FIRST : next + 1;
      picked.set(key, next);
      used.add(next);
    }
    return picked;
  }

  async startContainer(container: Container): Promise<void> {
    await this.control.start(this.own(container));
  }

  async removeContainer(container: Container, options: RemoveContainerOptions = {}): Promise<void> {
    const own = this.own(container);
    await this.control.remove(own, options.force ?? false);
    await this.releaseNamesOf(own);
  }

  /** Releases the Services of the names a container that left answered to, unless another container still does. */
  private releaseNamesOf(gone: PodContainer): Promise<void> {
    return this.aliases.releaseServices(labelledNames(gone.pod), (name) =>
      this.index.all().some((other) => other.podName !== gone.podName && other.pod.metadata?.labels?.[aliasLabel(name)] === 'true'),
    );
  }

  /** Whether some container answers to the name (its pod carries the alias label). */
  private answered(name: string): boolean {
    const label = aliasLabel(name);
    return this.index.all().some((container) => container.pod.metadata?.labels?.[label] === 'true');
  }

  own(container: Container): PodContainer {
    const found = this.index.find(container.id);
    if (!found) throw KubernetesErrors.noSuchContainer({ name: container.name });
    return found;
  }

  containers(): readonly Container[] {
    return this.index.all();
  }

  container(idOrName: string): PodContainer | undefined {
    const slash = idOrName.indexOf('/', 1);
    if (slash > 0 && !idOrName.startsWith('/')) {
      const node = idOrName.slice(0, slash);
      if (this.nodeMap.has(node) || this.ghostNodes.has(node)) return this.index.find(idOrName.slice(slash + 1), this.index.onNode(node));
    }
    return this.index.find(idOrName);
  }

  imageJson(idOrName: string): Record<string, unknown> | undefined {
    const image = this.capabilities.images?.find(idOrName);
    if (!image) return undefined;
    return imageInspect(image);
  }

  /**
   * A namespace is one network, so a network's membership is the names a container answers to:
   * connecting adds its name and aliases there (alias labels and their Services), disconnecting
   * takes away the names no other network of the container still gives it, and releases their
   * Services once no container answers to them.
   */
  async networkMembership(network: string, container: PodContainer, connect: boolean, aliases: readonly string[]): Promise<void> {
    const anchor = this.nodes()[0];
    const name = anchor ? this.aliases.nameOf(network, anchor) : undefined;
    if (!name)
      throw KubernetesErrors.apiRefused({ status: 404, what: 'network', message: `network ${network} not found` }, { httpStatus: 404 });
    const current = this.control.current(container);
    const before = new Map(current.memberships);
    const after = new Map(before);
    if (connect) after.set(name, [...new Set([...(before.get(name) ?? []), ...(isUserDefined(name) ? [current.name, ...aliases] : [])])]);
    else after.delete(name);
    const had = new Set(answeringNames(before));
    const has = new Set(answeringNames(after));
    const added = [...has].filter((alias) => !had.has(alias));
    const dropped = [...had].filter((alias) => !has.has(alias));
    const releaseNames = this.aliases.hold(added);
    try {
      await this.aliases.ensureServices(added);
      const labels: Record<string, string | null> = {};
      for (const alias of added) labels[aliasLabel(alias)] = 'true';
      for (const alias of dropped) labels[aliasLabel(alias)] = null;
      this.index.put(
        await this.api.patchPodMetadata(current.podName, { labels, annotations: { [PodMarks.networks]: encodeMemberships(after) } }),
      );
    } finally {
      releaseNames();
    }
    await this.aliases.releaseServices(dropped, (alias) => this.answered(alias));
  }

  networkJson(idOrName: string): Record<string, unknown> | undefined {
    const anchor = this.nodes()[0];
    return anchor ? this.aliases.inspectJson(idOrName, anchor, this.index.all()) : undefined;
  }

  explain(config: ContainerConfig): PlacementExplanation {
    return this.scheduler.explain(this.scheduler.request(config), this.schedulingNodes());
  }

  info(): ClusterInfo {
    const containers = this.index.all();
    const nodes = this.nodes();
    const running = containers.filter((container) => container.state === 'running').length;
    return {
      systemStatus: infoRows({
        strategy: this.scheduler.strategyName,
        filters: this.scheduler.filterNames,
        nodes,
        server: this.api.server,
        namespace: this.options.namespace,
        apiStatus: this.apiError ? `Unavailable: ${explainApiError(this.apiError)}` : 'Healthy',
      }),
      ncpu: nodes.reduce((sum, node) => sum + node.totalCpus(), 0),
      memTotal: nodes.reduce((sum, node) => sum + node.totalMemory(), 0),
      containers: containers.length,
      containersRunning: running,
      containersPaused: 0,
      containersStopped: containers.length - running,
      images: nodes.reduce((sum, node) => sum + node.images().length, 0),
      driver: this.driverName,
    };
  }

  subscribe(listener: (event: ClusterEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

/** The API server's refusal with what to do about it. */
function explainApiError(error: string): string {
  if (/\b401\b|Unauthorized/i.test(error))
    return `${error} (the credentials were refused: check the kubeconfig's user or the service account token)`;
  if (/\b403\b|forbidden/i.test(error)) {
    return `${error} (RBAC: the user needs list, watch on nodes (a ClusterRole), and in the namespace get, list, watch, create, delete, patch on pods, create on pods/binding, get on pods/log, get, create on pods/exec and pods/attach, list, create, delete on services and configmaps; see the driver README)`;
  }
  if (/ECONNREFUSED|ECONNRESET|ENOTFOUND|EHOSTUNREACH|ETIMEDOUT|socket hang up|Premature close/i.test(error))
    return `${error} (is the API server up, and is the kubeconfig's server address right?)`;
  return error;
}
