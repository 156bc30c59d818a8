import { randomBytes } from 'node:crypto';
import { ErrorCodes, isSwarmError, type Container, type Logger, type Node, type Scheduler } from '@swarm/plugin-sdk';
import type { ContainerConfig } from '@swarm/plugin-sdk/docker';
import { formatDuration } from '@swarm/plugin-sdk/helpers';
import type { MesosAgent } from './agent.js';
import type { AgentDirectory } from './agent-directory.js';
import { OfferBook } from './offer-book.js';
import type { MesosOptions } from './options.js';
import type { Offer } from './protocol.js';
import type { FrameworkCall } from './subscription.js';
import { buildTaskInfo } from './task-builder.js';
import { TaskQueue, type PendingTask } from './task-queue.js';
import type { TaskTracker } from './task-tracker.js';
import { MesosErrors } from './errors.js';

export interface TaskLauncherDeps {
  readonly options: MesosOptions;
  readonly scheduler: Scheduler;
  readonly agents: AgentDirectory;
  readonly tasks: TaskTracker;
  /** A call to the master as the subscribed framework. */
  readonly call: (call: FrameworkCall) => Promise<void>;
  /** Whether a container of the cluster already has the name. */
  readonly nameTaken: (name: string) => boolean;
  readonly logger: Logger;
}

/**
 * From `docker run` to a running task: the outstanding offers (as the agents' scheduler Nodes),
 * the runs waiting for an offer that fits, and the ACCEPT that launches each on the agent the
 * scheduler chose. Unused offers are declined after `mesos.offertimeout`; a run no offer fits
 * within `mesos.tasktimeout` fails with Swarm classic's text and the reason.
 */
export class TaskLauncher {
  private readonly offers: OfferBook;
  private readonly queue: TaskQueue;

  constructor(private readonly deps: TaskLauncherDeps) {
    const { options } = deps;
    this.offers = new OfferBook(options.offerTimeoutMs, (offer) => this.declineExpired(offer));
    this.queue = new TaskQueue(options.taskTimeoutMs, (task) =>
      task.reject(MesosErrors.taskTimedOut({ after: formatDuration(options.taskTimeoutMs), why: this.whyNotPlaced(task) })),
    );
  }

  /** A task for the config, once an offer fits it; its container when the task runs. */
  async launch(config: ContainerConfig, name: string | undefined): Promise<Container> {
    const { scheduler, agents } = this.deps;
    if (name && this.deps.nameTaken(name)) throw MesosErrors.nameInUse({ name });
    const request = scheduler.request(config, name);
    try {
      scheduler.select(request, this.offered());
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
    const agent = agents.get(agentId);
    if (!agent) throw MesosErrors.taskOnUnknownAgent({ task: taskId, agent: agentId });
    await agent.refresh();
    const container = agent.container(containerId);
    if (!container) {
      const why = agent.lastError();
      throw MesosErrors.taskContainerMissing({ task: taskId, container: containerId, agent: agent.name, why });
    }
    return container;
  }

  /** New offers from the master: they may fit runs that wait. */
  received(offers: readonly Offer[]): void {
    for (const offer of offers) {
      this.deps.agents.fromOffer(offer);
      this.offers.add(offer);
    }
    this.syncAgentOffers();
    this.launchPending();
  }

  rescinded(offerId: string): void {
    this.offers.remove(offerId);
    this.syncAgentOffers();
  }

  /** The master is gone: its offers with it. */
  forgetOffers(): void {
    this.offers.clear();
    this.syncAgentOffers();
  }

  /** The manager stops: the runs that wait fail. */
  stop(): void {
    this.offers.clear();
    for (const task of this.queue.list()) {
      this.queue.remove(task.taskId);
      task.reject(MesosErrors.managerStopping());
    }
  }

  /** The agents with outstanding offers: the nodes a run may be placed on now. */
  offered(): MesosAgent[] {
    return this.deps.agents.all().filter((agent) => agent.currentOffers().length > 0);
  }

  /** Every outstanding offer, for `docker info`. */
  allOffers(): readonly Offer[] {
    return this.offers.all();
  }

  private syncAgentOffers(): void {
    for (const agent of this.deps.agents.all()) agent.setOffers(this.offers.forAgent(agent.id));
  }

  private declineExpired(offer: Offer): void {
    this.syncAgentOffers();
    this.deps
      .call({
        type: 'DECLINE',
        decline: { offer_ids: [offer.id], filters: { refuse_seconds: this.deps.options.refuseTimeoutMs / 1000 } },
      })
      .catch((error: Error) => this.deps.logger.warn({ offer: offer.id.value, err: error.message }, 'mesos: DECLINE failed'));
  }

  /** Place waiting tasks, oldest first, on the current offers. */
  private launchPending(): void {
    for (const task of this.queue.list()) {
      const nodes = this.offered();
      if (nodes.length === 0) return;
      let chosen: Node | undefined;
      try {
        chosen = this.deps.scheduler.select(task.request, nodes).ranked[0]?.node;
      } catch (error) {
        task.lastRefusal = (error as Error).message;
        continue; // no offer fits yet: wait for the next batch
      }
      const agent = chosen ? this.deps.agents.get(chosen.id) : undefined;
      if (!agent) continue;
      this.launchOn(task, agent);
    }
  }

  /** The timeout's explanation: the scheduler's last refusal and the agents whose engines cannot be read. */
  private whyNotPlaced(task: PendingTask): string {
    const unreadable = this.deps.agents
      .all()
      .filter((agent) => agent.lastError() !== undefined)
      .map((agent) => `${agent.name}: ${agent.lastError()}`);
    const reasons = [task.lastRefusal, ...unreadable].filter((reason): reason is string => reason !== undefined);
    return reasons.length > 0 ? ` (${reasons.join('; ')})` : '';
  }

  private launchOn(task: PendingTask, agent: MesosAgent): void {
    const { call, logger, options, tasks } = this.deps;
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
        role: options.role,
      });
    } catch (error) {
      task.reject(error as Error);
      return;
    }
    task.agentId = agent.id;
    tasks.launched(task, agent.id);
    logger.info({ task: task.taskId, agent: agent.name }, 'mesos: launching task');
    call({
      type: 'ACCEPT',
      accept: {
        offer_ids: offers.map((offer) => offer.id),
        operations: [{ type: 'LAUNCH', launch: { task_infos: [taskInfo] } }],
        filters: { refuse_seconds: options.refuseTimeoutMs / 1000 },
      },
    }).catch((error: Error) => {
      tasks.forget(task.taskId);
      logger.error(`mesos: ACCEPT for task ${task.taskId} failed: ${error.message}`);
      // The master did not take the offers: give them back, or they stay outstanding.
      call({ type: 'DECLINE', decline: { offer_ids: offers.map((offer) => offer.id), filters: { refuse_seconds: 0 } } }).catch(
        (declineError: Error) => logger.warn({ err: declineError.message }, 'mesos: DECLINE after a failed ACCEPT failed'),
      );
      task.reject(MesosErrors.launchFailed({ task: task.taskId, reason: error.message }, { cause: error }));
    });
  }
}
