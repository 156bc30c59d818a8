import { ErrorCodes, isSwarmError, type Container, type RemoveContainerOptions, type RestartOptions } from '@swarm/plugin-sdk';
import type { ContainerConfig, ContainerInspect } from '@swarm/plugin-sdk/docker';
import type { MesosAgent } from './agent.js';
import type { AgentDirectory } from './agent-directory.js';
import type { FrameworkCall } from './subscription.js';
import { relaunchConfig } from './relaunch-config.js';
import { RestartedIds } from './restarted-ids.js';
import type { TaskLauncher } from './task-launcher.js';
import type { TaskTracker } from './task-tracker.js';
import { MesosErrors } from './errors.js';
import { MesosLabels } from './labels.js';

const KILL_TIMEOUT_MS = 20_000;
const REMOVAL_POLL_MS = 50;

export interface TaskContainersDeps {
  readonly agents: AgentDirectory;
  readonly tasks: TaskTracker;
  readonly launcher: TaskLauncher;
  /** A call to the master as the subscribed framework. */
  readonly call: (call: FrameworkCall) => Promise<void>;
}

/**
 * The containers of the framework's tasks, as the docker CLI acts on them: created through a
 * launch, removed with the task killed first, restarted by running the task again. The agent may
 * remove an ended task's container itself, before or while the manager does; each verb succeeds
 * once whichever side gets there first.
 */
export class TaskContainers {
  /** The create config of each container this manager launched, to run it again on restart. */
  private readonly launchConfigs = new Map<string, ContainerConfig>();
  private readonly restartedIds = new RestartedIds();

  constructor(private readonly deps: TaskContainersDeps) {}

  /** Full or short ID, name, or the ID of a container that `docker restart` replaced. */
  find(idOrName: string): Container | undefined {
    const found = this.deps.agents.container(idOrName);
    if (found) return found;
    const current = this.restartedIds.current(idOrName);
    return current === undefined ? undefined : this.deps.agents.container(current);
  }

  async create(config: ContainerConfig, name: string | undefined): Promise<Container> {
    if (!config.HostConfig?.Memory && !config.HostConfig?.CpuShares) throw MesosErrors.resourcesRequired();
    return this.launch(config, name);
  }

  async start(container: Container): Promise<void> {
    if (container.state === 'running') return;
    // the engine's own refusal (404 gone, 409 cannot start) reaches the client with its status
    await this.agentOf(container).engine.json({ method: 'POST', path: `/containers/${encodeURIComponent(container.id)}/start` });
    await this.agentOf(container).refresh();
  }

  async remove(container: Container, options: RemoveContainerOptions = {}): Promise<void> {
    const agent = this.agentOf(container);
    const taskId = container.labels[MesosLabels.task];
    const killed = Boolean(taskId && container.state === 'running' && options.force);
    if (killed) await this.killTask(taskId!, agent.id);
    // a 404 for a container nobody killed here reaches the client with the engine's status
    await this.deleteOnEngine(agent, container, { force: options.force ? 1 : 0, v: options.volumes ? 1 : 0 }, killed);
    this.restartedIds.removed(container.id);
    await agent.refresh();
  }

  /**
   * A Mesos task ends for good when its container stops, and the agent may remove an ended task's
   * container at once: restarted by its engine, the container would run outside Mesos (its
   * resources offered to others) or be removed under the client. So a task restarts the Mesos
   * way: killed with `t` as the executor's grace period, then launched again with the same name
   * and config. The old ID keeps leading to the new container.
   */
  async restart(container: Container, options: RestartOptions): Promise<void> {
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
    await this.deleteOnEngine(agent, container, { force: 1 }, true);
    const restarted = await this.launch(config, container.labels[MesosLabels.name]);
    this.restartedIds.replaced(container.id, restarted.id);
  }

  private async launch(config: ContainerConfig, name: string | undefined): Promise<Container> {
    const container = await this.deps.launcher.launch(config, name);
    this.launchConfigs.set(container.id, config);
    return container;
  }

  /**
   * DELETE on the agent's engine, and the container forgotten. The agent may remove an ended
   * task's container itself (the Docker containerizer with --docker_remove_delay=0), before or
   * while we do: going is removed, and so is gone when `goneIsRemoved` (the task ended here).
   */
  private async deleteOnEngine(
    agent: MesosAgent,
    container: Container,
    query: Record<string, number>,
    goneIsRemoved: boolean,
  ): Promise<void> {
    const path = `/containers/${encodeURIComponent(container.id)}`;
    await agent.engine.json({ method: 'DELETE', path, query }).catch(async (error: unknown) => {
      if (goneIsRemoved && isSwarmError(error, ErrorCodes.NOT_FOUND)) return;
      if (isSwarmError(error, ErrorCodes.CONFLICT) && (await this.removedByOther(agent, path))) return;
      throw error;
    });
    agent.forget(container.id);
    this.launchConfigs.delete(container.id);
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
    const ended = this.deps.tasks.waitForEnd(taskId, KILL_TIMEOUT_MS + (graceSeconds ?? 0) * 1000);
    const kill: Extract<FrameworkCall, { type: 'KILL' }>['kill'] = { task_id: { value: taskId }, agent_id: { value: agentId } };
    if (graceSeconds !== undefined) kill.kill_policy = { grace_period: { nanoseconds: graceSeconds * 1e9 } };
    await this.deps.call({ type: 'KILL', kill });
    await ended;
  }

  private agentOf(container: Container): MesosAgent {
    const agent = this.deps.agents.get(container.node.id);
    if (!agent) throw MesosErrors.noSuchNode({ node: container.node.name });
    return agent;
  }
}
