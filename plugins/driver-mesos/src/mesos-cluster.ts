import { randomBytes } from 'node:crypto';
import { hostname, userInfo } from 'node:os';
import {
  ErrorCodes,
  isSwarmError,
  type Cluster,
  type ClusterCapabilities,
  type ClusterEvent,
  type ClusterInfo,
  type Container,
  type ContainerConfig,
  type ContainerInspect,
  type DeploymentConfig,
  type DockerEvent,
  type Logger,
  type Node,
  type PlacementExplanation,
  type RemoveContainerOptions,
  type RestartOptions,
  type Scheduler,
} from '@swarm/plugin-sdk';
import { formatDuration, readEngineTls } from '@swarm/plugin-sdk/helpers';
import type { MesosAgent } from './agent.js';
import { AgentDirectory } from './agent-directory.js';
import { fromAgent, taskEvent } from './agent-events.js';
import { infoRows } from './info-rows.js';
import { createMasterFinder, type MasterFinder } from './master-finder.js';
import { parseMasterLocation } from './master-url.js';
import { OfferBook } from './offer-book.js';
import { parseMesosOptions, type MesosOptions } from './options.js';
import { TERMINAL_STATES, type Event, type FrameworkInfo, type Offer, type TaskStatus } from './protocol.js';
import { relaunchConfig } from './relaunch-config.js';
import { RestartedIds } from './restarted-ids.js';
import { TaskTracker } from './task-tracker.js';
import { Subscription, type FrameworkCall } from './subscription.js';
import { buildTaskInfo } from './task-builder.js';
import { TaskQueue, type PendingTask } from './task-queue.js';
import { containerDetailsFromStatus, containerIdFromStatus } from './task-status.js';
import { EventDedup } from './event-dedup.js';
import { MesosErrors } from './errors.js';
import { MesosLabels } from './labels.js';

const REFRESH_INTERVAL_MS = 2000;
const KILL_TIMEOUT_MS = 20_000;
const REMOVAL_POLL_MS = 50;

export interface MesosClusterDeps {
  config: DeploymentConfig;
  scheduler: Scheduler;
  logger: Logger;
  env?: Readonly<Record<string, string | undefined>>;
}

/**
 * The "mesos" driver: swarm is a Mesos framework. Offers become scheduler Nodes, `docker run`
 * becomes a Docker task launched with the chosen agent's offers, and everything else goes to the
 * agents' Docker engines directly. Mesos places every container, so images, volumes and networks
 * are only read from the agents' engines (as Swarm classic's Mesos cluster); renames and builds
 * are not offered.
 */
export class MesosCluster implements Cluster {
  readonly driverName = 'mesos';
  readonly capabilities: ClusterCapabilities = {
    images: { list: () => this.agents.images(), find: (idOrName) => this.agents.image(idOrName) },
    volumes: { list: () => this.agents.volumes(), find: (name) => this.agents.volume(name) },
    networks: { list: () => this.agents.networks(), find: (idOrName) => this.agents.network(idOrName) },
    enginePlugins: { nodes: () => this.agents.all() },
    containerRestart: { restart: (container, options) => this.restartContainer(container, options) },
  };
  private readonly options: MesosOptions;
  private readonly logger: Logger;
  private readonly scheduler: Scheduler;
  private readonly finder: MasterFinder;
  private readonly subscription: Subscription;
  private readonly offers: OfferBook;
  private readonly queue: TaskQueue;
  private readonly agents: AgentDirectory;
  private readonly tasks = new TaskTracker();
  /** The create config of each container this manager launched, to run it again on restart. */
  private readonly launchConfigs = new Map<string, ContainerConfig>();
  private readonly restartedIds = new RestartedIds();
  private readonly listeners = new Set<(event: ClusterEvent) => void>();
  private readonly dedup = new EventDedup();
  private frameworkId: string | undefined;
  private refreshTimer: NodeJS.Timeout | undefined;

  constructor(deps: MesosClusterDeps) {
    this.logger = deps.logger.child({ driver: 'mesos' });
    this.scheduler = deps.scheduler;
    this.options = parseMesosOptions(deps.config.cluster.options, deps.env ?? process.env);
    this.agents = new AgentDirectory({
      tls: readEngineTls(deps.config.cluster.tls),
      onEvent: (agent, event) => this.onEngineEvent(agent, event),
      logger: this.logger,
    });
    this.finder = createMasterFinder(
      parseMasterLocation(deps.config.cluster.discovery),
      this.options.frameworkName,
      this.options.stateFile,
      this.logger,
    );
    this.offers = new OfferBook(this.options.offerTimeoutMs, (offer) => this.declineExpired(offer));
    this.queue = new TaskQueue(this.options.taskTimeoutMs, (task) =>
      task.reject(MesosErrors.taskTimedOut({ after: formatDuration(this.options.taskTimeoutMs), why: this.whyNotPlaced(task) })),
    );
    this.subscription = new Subscription({
      frameworkInfo: () => this.frameworkInfo(),
      handlers: {
        subscribed: (id) => this.onSubscribed(id),
        event: (event) => this.onEvent(event),
        disconnected: () => this.onDisconnected(),
      },
      logger: this.logger,
    });
  }

  async start(): Promise<void> {
    // The finder opens the ZooKeeper session the framework-ID store reads through; the
    // subscription only records the master until it is started below.
    this.finder.start((master, why) => this.subscription.setMaster(master, why));
    this.frameworkId = await this.finder.store.load().catch((error: Error) => {
      this.logger.warn({ err: error.message, store: this.finder.store.describe() }, 'mesos: cannot read the stored framework ID');
      return undefined;
    });
    if (this.frameworkId) this.logger.info({ frameworkId: this.frameworkId }, 'mesos: re-subscribing as the stored framework');
    this.subscription.start();
    this.refreshTimer = setInterval(() => void this.agents.refreshAll(), REFRESH_INTERVAL_MS);
    this.refreshTimer.unref();
  }

  async stop(): Promise<void> {
    if (this.refreshTimer) clearInterval(this.refreshTimer);
    this.agents.stopEvents();
    if (this.options.teardownOnStop && this.frameworkId && this.subscription.isSubscribed()) {
      await this.call({ type: 'TEARDOWN' }).catch((error: Error) => this.logger.warn({ err: error.message }, 'mesos: TEARDOWN failed'));
      await this.finder.store.clear().catch(() => undefined);
    }
    this.subscription.stop();
    this.finder.stop();
    this.offers.clear();
    for (const task of this.queue.list()) {
      this.queue.remove(task.taskId);
      task.reject(MesosErrors.managerStopping());
    }
  }

  /** The framework ID the master gave us (for tests and `info`). */
  currentFrameworkId(): string | undefined {
    return this.frameworkId;
  }

  private frameworkInfo(): FrameworkInfo {
    const info: FrameworkInfo = {
      user: this.options.user || userInfo().username,
      name: this.options.frameworkName,
      failover_timeout: this.options.failoverTimeoutMs / 1000,
      checkpoint: this.options.checkpoint,
      role: this.options.role,
      hostname: this.options.address ?? hostname(),
    };
    if (this.frameworkId) info.id = { value: this.frameworkId };
    return info;
  }

  private call(call: FrameworkCall): Promise<void> {
    if (!this.frameworkId) return Promise.reject(MesosErrors.notRegistered());
    return this.subscription.call(call, this.frameworkId);
  }

  private onSubscribed(frameworkId: string): void {
    const fresh = frameworkId !== this.frameworkId;
    this.frameworkId = frameworkId;
    this.logger.info({ frameworkId }, 'mesos: subscribed');
    if (fresh) {
      this.finder.store
        .save(frameworkId)
        .catch((error: Error) => this.logger.warn({ err: error.message }, 'mesos: cannot store the framework ID'));
    }
    // Implicit reconciliation (every task the master knows), then explicit for the ones we know.
    const explicit = this.tasks.live();
    this.call({ type: 'RECONCILE', reconcile: { tasks: [] } })
      .then(() => (explicit.length > 0 ? this.call({ type: 'RECONCILE', reconcile: { tasks: explicit } }) : undefined))
      .catch((error: Error) => this.logger.warn({ err: error.message }, 'mesos: RECONCILE failed'));
  }

  private onDisconnected(): void {
    this.offers.clear();
    this.syncAgentOffers();
  }

  private onEvent(event: Event): void {
    switch (event.type) {
      case 'OFFERS':
        for (const offer of event.offers.offers ?? []) this.addOffer(offer);
        this.syncAgentOffers();
        this.launchPending();
        break;
      case 'RESCIND':
        this.offers.remove(event.rescind.offer_id.value);
        this.syncAgentOffers();
        break;
      case 'UPDATE':
        this.onStatus(event.update.status);
        break;
      case 'FAILURE':
        this.logger.warn({ agent: event.failure.agent_id?.value, status: event.failure.status }, 'mesos: agent or executor failure');
        break;
      case 'ERROR':
        if (/removed|torn down|teardown/i.test(event.error.message)) {
          this.frameworkId = undefined;
          void this.finder.store.clear();
        }
        break;
      default:
        break;
    }
  }

  private addOffer(offer: Offer): void {
    this.agents.fromOffer(offer);
    this.offers.add(offer);
  }

  private syncAgentOffers(): void {
    for (const agent of this.agents.all()) agent.setOffers(this.offers.forAgent(agent.id));
  }

  private declineExpired(offer: Offer): void {
    this.syncAgentOffers();
    this.call({
      type: 'DECLINE',
      decline: { offer_ids: [offer.id], filters: { refuse_seconds: this.options.refuseTimeoutMs / 1000 } },
    }).catch((error: Error) => this.logger.warn({ offer: offer.id.value, err: error.message }, 'mesos: DECLINE failed'));
  }

  private offeredNodes(): MesosAgent[] {
    return this.agents.all().filter((agent) => agent.currentOffers().length > 0);
  }

  /** Place waiting tasks, oldest first, on the current offers. */
  private launchPending(): void {
    for (const task of this.queue.list()) {
      const nodes = this.offeredNodes();
      if (nodes.length === 0) return;
      let chosen: Node | undefined;
      try {
        chosen = this.scheduler.select(task.request, nodes).ranked[0]?.node;
      } catch (error) {
        task.lastRefusal = (error as Error).message;
        continue; // no offer fits yet: wait for the next batch
      }
      const agent = chosen ? this.agents.get(chosen.id) : undefined;
      if (!agent) continue;
      this.launch(task, agent);
    }
  }

  /** The timeout's explanation: the scheduler's last refusal and the agents whose engines cannot be read. */
  private whyNotPlaced(task: PendingTask): string {
    const unreadable = this.agents
      .all()
      .filter((agent) => agent.lastError() !== undefined)
      .map((agent) => `${agent.name}: ${agent.lastError()}`);
    const reasons = [task.lastRefusal, ...unreadable].filter((reason): reason is string => reason !== undefined);
    return reasons.length > 0 ? ` (${reasons.join('; ')})` : '';
  }

  private launch(task: PendingTask, agent: MesosAgent): void {
    const offers = this.offers.take(agent.id);
    this.syncAgentOffers();
    this.queue.remove(task.taskId);
    let taskInfo;
    try {
      taskInfo = buildTaskInfo({
        taskId: task.taskId,
        name: task.name,
        config: task.config,
        agentId: agent.id,
        offers,
        role: this.options.role,
      });
    } catch (error) {
      task.reject(error as Error);
      return;
    }
    task.agentId = agent.id;
    this.tasks.launched(task, agent.id);
    this.logger.info({ task: task.taskId, agent: agent.name }, 'mesos: launching task');
    this.call({
      type: 'ACCEPT',
      accept: {
        offer_ids: offers.map((offer) => offer.id),
        operations: [{ type: 'LAUNCH', launch: { task_infos: [taskInfo] } }],
        filters: { refuse_seconds: this.options.refuseTimeoutMs / 1000 },
      },
    }).catch((error: Error) => {
      this.tasks.forget(task.taskId);
      this.logger.error(`mesos: ACCEPT for task ${task.taskId} failed: ${error.message}`);
      // The master did not take the offers: give them back, or they stay outstanding.
      this.call({ type: 'DECLINE', decline: { offer_ids: offers.map((offer) => offer.id), filters: { refuse_seconds: 0 } } }).catch(
        (declineError: Error) => this.logger.warn({ err: declineError.message }, 'mesos: DECLINE after a failed ACCEPT failed'),
      );
      task.reject(MesosErrors.launchFailed({ task: task.taskId, reason: error.message }, { cause: error }));
    });
  }

  private onStatus(status: TaskStatus): void {
    const taskId = status.task_id.value;
    const agentId = status.agent_id?.value;
    if (status.uuid && agentId) {
      this.call({ type: 'ACKNOWLEDGE', acknowledge: { agent_id: { value: agentId }, task_id: status.task_id, uuid: status.uuid } }).catch(
        (error: Error) => this.logger.warn({ task: taskId, err: error.message }, 'mesos: ACKNOWLEDGE failed'),
      );
    }
    this.logger.debug({ task: taskId, state: status.state, message: status.message }, 'mesos: task status');
    this.tasks.apply(status);
    if (status.state !== 'TASK_RUNNING' && !TERMINAL_STATES.has(status.state)) return;
    const agent = agentId ? this.agents.get(agentId) : undefined;
    if (!agent) return;
    void agent.refresh();
    if (status.reason !== 'REASON_RECONCILIATION') this.publishTaskEvent(status, agent);
  }

  /** The start or death a task update implies, unless the agent's engine tells it (see EventDedup). */
  private publishTaskEvent(status: TaskStatus, agent: MesosAgent): void {
    const action = status.state === 'TASK_RUNNING' ? 'start' : 'die';
    const known = agent.containers().find((container) => container.labels[MesosLabels.task] === status.task_id.value);
    const containerId = containerIdFromStatus(status) ?? known?.id;
    if (!containerId || !this.dedup.taskEvent(containerId, action, agent.events.isLive())) return;
    const details = known ? { image: known.image, name: known.name } : containerDetailsFromStatus(status);
    this.publish(fromAgent(taskEvent(action, { id: containerId, ...details }), agent));
  }

  private onEngineEvent(agent: MesosAgent, event: DockerEvent): void {
    const actorId = (event['Actor'] as { ID?: string } | undefined)?.ID;
    const containerId = (event.Type ?? 'container') === 'container' ? (event.id ?? actorId) : undefined;
    if (containerId && !this.dedup.engineEvent(containerId, event.Action ?? event.status ?? '')) return;
    this.publish(fromAgent(event, agent));
  }

  private publish(event: ClusterEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        this.logger.warn({ err: (error as Error).message }, 'mesos: event listener failed');
      }
    }
  }

  nodes(): readonly Node[] {
    return this.agents.all();
  }

  async createContainer(config: ContainerConfig, name: string | undefined): Promise<Container> {
    if (!config.HostConfig?.Memory && !config.HostConfig?.CpuShares) throw MesosErrors.resourcesRequired();
    return this.launchContainer(config, name);
  }

  /** A task for the config, once an offer fits it; its container when the task runs. */
  private async launchContainer(config: ContainerConfig, name: string | undefined): Promise<Container> {
    if (name && this.container(name)) throw MesosErrors.nameInUse({ name });
    const request = this.scheduler.request(config, name);
    try {
      this.scheduler.select(request, this.offeredNodes());
    } catch (error) {
      // Only errors no offer can fix are reported at once; the rest wait for offers.
      if (isSwarmError(error, ErrorCodes.INVALID_EXPRESSION)) throw error;
    }
    const shortId = randomBytes(6).toString('hex');
    const taskId = name ? `${name}.${shortId}` : shortId;
    const started = new Promise<{ containerId: string; agentId: string }>((resolve, reject) => {
      this.queue.add({
        taskId,
        name,
        config: request.config,
        request,
        resolve: (containerId, agentId) => resolve({ containerId, agentId }),
        reject,
      });
    });
    this.launchPending();
    const { containerId, agentId } = await started;
    const agent = this.agents.get(agentId);
    if (!agent) throw MesosErrors.taskOnUnknownAgent({ task: taskId, agent: agentId });
    await agent.refresh();
    const container = agent.container(containerId);
    if (!container) {
      const why = agent.lastError();
      throw MesosErrors.taskContainerMissing({ task: taskId, container: containerId, agent: agent.name, why });
    }
    this.launchConfigs.set(container.id, config);
    return container;
  }

  /**
   * A Mesos task ends for good when its container stops, and the agent may remove an ended task's
   * container at once: restarted by its engine, the container would run outside Mesos (its
   * resources offered to others) or be removed under the client. So a task restarts the Mesos
   * way: killed with `t` as the executor's grace period, then launched again with the same name
   * and config. The old ID keeps leading to the new container.
   */
  private async restartContainer(container: Container, options: RestartOptions): Promise<void> {
    const agent = this.agentOf(container);
    const taskId = container.labels[MesosLabels.task];
    if (!taskId) {
      const query = options.timeoutSeconds === undefined ? undefined : { t: options.timeoutSeconds };
      await agent.engine.json({ method: 'POST', path: `/containers/${encodeURIComponent(container.id)}/restart`, query });
      await agent.refresh();
      return;
    }
    const config =
      this.launchConfigs.get(container.id) ??
      relaunchConfig(await agent.engine.json<ContainerInspect>({ path: `/containers/${encodeURIComponent(container.id)}/json` }));
    if (container.state === 'running') await this.killTask(taskId, agent.id, options.timeoutSeconds);
    await this.discard(agent, container);
    const restarted = await this.launchContainer(config, container.labels[MesosLabels.name]);
    this.restartedIds.replaced(container.id, restarted.id);
  }

  /** Removes an ended task's container, which the agent may be removing too. */
  private async discard(agent: MesosAgent, container: Container): Promise<void> {
    const path = `/containers/${encodeURIComponent(container.id)}`;
    await agent.engine.json({ method: 'DELETE', path, query: { force: 1 } }).catch(async (error: unknown) => {
      if (isSwarmError(error, ErrorCodes.NOT_FOUND)) return;
      if (isSwarmError(error, ErrorCodes.CONFLICT) && (await this.removedByOther(agent, path))) return;
      throw error;
    });
    this.launchConfigs.delete(container.id);
    agent.forget(container.id);
  }

  async startContainer(container: Container): Promise<void> {
    if (container.state === 'running') return;
    // the engine's own refusal (404 gone, 409 cannot start) reaches the client with its status
    await this.agentOf(container).engine.json({ method: 'POST', path: `/containers/${encodeURIComponent(container.id)}/start` });
    await this.agentOf(container).refresh();
  }

  async removeContainer(container: Container, options: RemoveContainerOptions = {}): Promise<void> {
    const agent = this.agentOf(container);
    const taskId = container.labels[MesosLabels.task];
    const killed = Boolean(taskId && container.state === 'running' && options.force);
    if (killed) await this.killTask(taskId!, agent.id);
    const query = { force: options.force ? 1 : 0, v: options.volumes ? 1 : 0 };
    const path = `/containers/${encodeURIComponent(container.id)}`;
    // The agent may remove a killed task's container itself (the Docker containerizer with
    // --docker_remove_delay=0), before or while we do: gone already, or going, is removed. Any
    // other refusal (a 404 for a container nobody killed here included) reaches the client with
    // the engine's status.
    await agent.engine.json({ method: 'DELETE', path, query }).catch(async (error: unknown) => {
      if (killed && isSwarmError(error, ErrorCodes.NOT_FOUND)) return;
      if (isSwarmError(error, ErrorCodes.CONFLICT) && (await this.removedByOther(agent, path))) return;
      throw error;
    });
    agent.forget(container.id);
    this.launchConfigs.delete(container.id);
    this.restartedIds.removed(container.id);
    await agent.refresh();
  }

  /** Whether a container another party is removing is gone within the kill timeout. */
  private async removedByOther(agent: MesosAgent, path: string): Promise<boolean> {
    const deadline = Date.now() + KILL_TIMEOUT_MS;
    while (Date.now() < deadline) {
      const state = await agent.engine.json<{ State?: { Status?: string } }>({ path: `${path}/json` }).then(
        (inspect) => inspect?.State?.Status,
        (error: unknown) => {
          if (isSwarmError(error, ErrorCodes.NOT_FOUND)) return 'gone';
          throw error;
        },
      );
      if (state === 'gone') return true;
      if (state !== 'removing') return false;
      await new Promise((resolve) => setTimeout(resolve, REMOVAL_POLL_MS));
    }
    return false;
  }

  /** KILL a task (SIGTERM first when there is a grace period) and wait for its terminal update. */
  private async killTask(taskId: string, agentId: string, graceSeconds?: number): Promise<void> {
    const ended = this.tasks.waitForEnd(taskId, KILL_TIMEOUT_MS + (graceSeconds ?? 0) * 1000);
    const kill: Extract<FrameworkCall, { type: 'KILL' }>['kill'] = { task_id: { value: taskId }, agent_id: { value: agentId } };
    if (graceSeconds !== undefined) kill.kill_policy = { grace_period: { nanoseconds: graceSeconds * 1e9 } };
    await this.call({ type: 'KILL', kill });
    await ended;
  }

  private agentOf(container: Container): MesosAgent {
    const agent = this.agents.get(container.node.id);
    if (!agent) throw MesosErrors.noSuchNode({ node: container.node.name });
    return agent;
  }

  containers(): readonly Container[] {
    return this.agents.containers();
  }

  container(idOrName: string): Container | undefined {
    const found = this.agents.container(idOrName);
    if (found) return found;
    const current = this.restartedIds.current(idOrName);
    return current === undefined ? undefined : this.agents.container(current);
  }

  explain(config: ContainerConfig): PlacementExplanation {
    return this.scheduler.explain(this.scheduler.request(config), this.offeredNodes());
  }

  info(): ClusterInfo {
    const offered = this.offeredNodes();
    const containers = this.containers();
    const master = this.subscription.masterAddress();
    return {
      systemStatus: infoRows({
        strategy: this.scheduler.strategyName,
        filters: this.scheduler.filterNames,
        offers: this.offers.all(),
        master: master ? `${master.host}:${master.port}` : 'none',
        discovery: this.finder.describe(),
        frameworkId: this.frameworkId ?? '',
        status: this.subscription.statusText(),
      }),
      ncpu: offered.reduce((sum, agent) => sum + agent.totalCpus(), 0),
      memTotal: offered.reduce((sum, agent) => sum + agent.totalMemory(), 0),
      containers: containers.length,
      containersRunning: containers.filter((container) => container.state === 'running').length,
      containersPaused: containers.filter((container) => container.state === 'paused').length,
      containersStopped: containers.filter((container) => container.state !== 'running' && container.state !== 'paused').length,
      images: this.agents.images().length,
      driver: this.driverName,
    };
  }

  subscribe(listener: (event: ClusterEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
