import type { PlacementRequest } from '@swarm/plugin-sdk';
import type { ContainerConfig } from '@swarm/plugin-sdk/docker';

/** A `docker run` waiting for an offer it fits, then for its task to run. */
export interface PendingTask {
  readonly taskId: string;
  readonly name: string | undefined;
  readonly config: ContainerConfig;
  readonly request: PlacementRequest;
  agentId?: string;
  /** Why the scheduler placed it on none of the last offers, for the timeout error. */
  lastRefusal?: string;
  /** Resolves with the container ID from TASK_RUNNING. */
  resolve(containerId: string, agentId: string): void;
  reject(error: Error): void;
}

/**
 * Tasks that wait for offers, oldest first. A task that finds no fitting offer within the task
 * timeout is failed with Swarm classic's text by the caller's `onTimeout`.
 */
export class TaskQueue {
  private readonly waiting: PendingTask[] = [];
  private readonly timers = new Map<string, NodeJS.Timeout>();

  constructor(
    private readonly timeoutMs: number,
    private readonly onTimeout: (task: PendingTask) => void,
  ) {}

  add(task: PendingTask): void {
    this.waiting.push(task);
    const timer = setTimeout(() => {
      if (this.remove(task.taskId)) this.onTimeout(task);
    }, this.timeoutMs);
    timer.unref();
    this.timers.set(task.taskId, timer);
  }

  remove(taskId: string): boolean {
    const index = this.waiting.findIndex((task) => task.taskId === taskId);
    const timer = this.timers.get(taskId);
    if (timer) clearTimeout(timer);
    this.timers.delete(taskId);
    if (index < 0) return false;
    this.waiting.splice(index, 1);
    return true;
  }

  list(): readonly PendingTask[] {
    return [...this.waiting];
  }

  size(): number {
    return this.waiting.length;
  }
}
