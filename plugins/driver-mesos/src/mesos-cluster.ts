import { hostname, userInfo } from 'node:os';
import type {
  Cluster,
  ClusterCapabilities,
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
import type { ContainerConfig } from '@swarm/plugin-sdk/docker';
import { readEngineTls } from '@swarm/plugin-sdk/helpers';
import { AgentDirectory } from './agent-directory.js';
import { infoRows } from './info-rows.js';
import { createMasterFinder, type MasterFinder } from './master-finder.js';
import { parseMasterLocation } from './master-url.js';
import { MesosEvents } from './mesos-events.js';
import { parseMesosOptions, type MesosOptions } from './options.js';
import { TERMINAL_STATES, type Event, type FrameworkInfo, type TaskStatus } from './protocol.js';
import { Subscription, type FrameworkCall } from './subscription.js';
import { TaskContainers } from './task-containers.js';
import { TaskLauncher } from './task-launcher.js';
import { TaskTracker } from './task-tracker.js';
import { MesosErrors } from './errors.js';

const REFRESH_INTERVAL_MS = 2000;

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
 *
 * This class is the framework's side of the protocol (subscription, master events, task status
 * updates, reconciliation); placing runs on offers is the TaskLauncher's job, acting on task
 * containers the TaskContainers', and the event stream MesosEvents'.
 */
export class MesosCluster implements Cluster {
  readonly driverName = 'mesos';
  readonly capabilities: ClusterCapabilities = {
    images: { list: () => this.agents.images(), find: (idOrName) => this.agents.image(idOrName) },
    volumes: { list: () => this.agents.volumes(), find: (name) => this.agents.volume(name) },
    networks: { list: () => this.agents.networks(), find: (idOrName) => this.agents.network(idOrName) },
    enginePlugins: { nodes: () => this.agents.all() },
    containerRestart: { restart: (container, options) => this.taskContainers.restart(container, options) },
  };
  private readonly options: MesosOptions;
  private readonly logger: Logger;
  private readonly scheduler: Scheduler;
  private readonly finder: MasterFinder;
  private readonly subscription: Subscription;
  private readonly agents: AgentDirectory;
  private readonly tasks = new TaskTracker();
  private readonly events: MesosEvents;
  private readonly launcher: TaskLauncher;
  private readonly taskContainers: TaskContainers;
  private frameworkId: string | undefined;
  private refreshTimer: NodeJS.Timeout | undefined;

  constructor(deps: MesosClusterDeps) {
    this.logger = deps.logger.child({ driver: 'mesos' });
    this.scheduler = deps.scheduler;
    this.options = parseMesosOptions(deps.config.cluster.options, deps.env ?? process.env);
    this.events = new MesosEvents(this.logger);
    this.agents = new AgentDirectory({
      tls: readEngineTls(deps.config.cluster.tls),
      onEvent: (agent, event) => this.events.fromEngine(agent, event),
      logger: this.logger,
    });
    this.finder = createMasterFinder(
      parseMasterLocation(deps.config.cluster.discovery),
      this.options.frameworkName,
      this.options.stateFile,
      this.logger,
    );
    const call = (frameworkCall: FrameworkCall) => this.call(frameworkCall);
    this.launcher = new TaskLauncher({
      options: this.options,
      scheduler: this.scheduler,
      agents: this.agents,
      tasks: this.tasks,
      call,
      nameTaken: (name) => this.container(name) !== undefined,
      logger: this.logger,
    });
    this.taskContainers = new TaskContainers({ agents: this.agents, tasks: this.tasks, launcher: this.launcher, call });
    this.subscription = new Subscription({
      frameworkInfo: () => this.frameworkInfo(),
      handlers: {
        subscribed: (id) => this.onSubscribed(id),
        event: (event) => this.onEvent(event),
        disconnected: () => this.launcher.forgetOffers(),
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
    this.launcher.stop();
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

  private onEvent(event: Event): void {
    switch (event.type) {
      case 'OFFERS':
        this.launcher.received(event.offers.offers ?? []);
        break;
      case 'RESCIND':
        this.launcher.rescinded(event.rescind.offer_id.value);
        break;
      case 'UPDATE':
        this.onStatus(event.update.status);
        break;
      case 'FAILURE':
        this.logger.warn({ agent: event.failure.agent_id?.value, status: event.failure.status }, 'mesos: agent or executor failure');
        break;
      case 'ERROR':
        // The master's ERROR event carries only a message: a removed framework says so in it.
        if (/removed|torn down|teardown/i.test(event.error.message)) {
          this.frameworkId = undefined;
          void this.finder.store.clear();
        }
        break;
      default:
        break;
    }
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
    if (status.reason !== 'REASON_RECONCILIATION') this.events.fromTask(status, agent);
  }

  nodes(): readonly Node[] {
    return this.agents.all();
  }

  createContainer(config: ContainerConfig, name: string | undefined): Promise<Container> {
    return this.taskContainers.create(config, name);
  }

  startContainer(container: Container): Promise<void> {
    return this.taskContainers.start(container);
  }

  removeContainer(container: Container, options?: RemoveContainerOptions): Promise<void> {
    return this.taskContainers.remove(container, options);
  }

  containers(): readonly Container[] {
    return this.agents.containers();
  }

  container(idOrName: string): Container | undefined {
    return this.taskContainers.find(idOrName);
  }

  explain(config: ContainerConfig): PlacementExplanation {
    return this.scheduler.explain(this.scheduler.request(config), this.launcher.offered());
  }

  info(): ClusterInfo {
    const offered = this.launcher.offered();
    const containers = this.containers();
    const master = this.subscription.masterAddress();
    return {
      systemStatus: infoRows({
        strategy: this.scheduler.strategyName,
        filters: this.scheduler.filterNames,
        offers: this.launcher.allOffers(),
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
    return this.events.subscribe(listener);
  }
}
