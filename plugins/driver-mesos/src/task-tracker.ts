import { TERMINAL_STATES, type TaskStatus } from './protocol.js';
import type { PendingTask } from './task-queue.js';
import { containerIdFromStatus, describeFailure } from './task-status.js';
import { MesosErrors } from './errors.js';

/**
 * The framework's tasks after launch: settles each `docker run` on TASK_RUNNING (or its failure),
 * remembers every live task's agent for KILL and explicit reconciliation, and wakes whoever
 * waits for a task to end.
 */
export class TaskTracker {
  private readonly launching = new Map<string, PendingTask>();
  private readonly agentOfTask = new Map<string, string>();
  private readonly endWaiters = new Map<string, () => void>();

  launched(task: PendingTask, agentId: string): void {
    this.launching.set(task.taskId, task);
    this.agentOfTask.set(task.taskId, agentId);
  }

  /** The launch call itself failed: forget the task. */
  forget(taskId: string): void {
    this.launching.delete(taskId);
    this.agentOfTask.delete(taskId);
  }

  apply(status: TaskStatus): void {
    const taskId = status.task_id.value;
    const agentId = status.agent_id?.value;
    const terminal = TERMINAL_STATES.has(status.state);
    if (terminal) this.agentOfTask.delete(taskId);
    else if (agentId) this.agentOfTask.set(taskId, agentId);
    const pending = this.launching.get(taskId);
    if (pending && status.state === 'TASK_RUNNING') {
      this.launching.delete(taskId);
      const containerId = containerIdFromStatus(status);
      if (containerId && agentId) pending.resolve(containerId, agentId);
      else pending.reject(MesosErrors.taskWithoutContainer({ task: taskId }));
    } else if (pending && terminal) {
      this.launching.delete(taskId);
      pending.reject(MesosErrors.taskFailed({ description: describeFailure(status) }));
    }
    if (terminal) this.endWaiters.get(taskId)?.();
  }

  /** Live tasks with their agents, for explicit reconciliation. */
  live(): Array<{ task_id: { value: string }; agent_id: { value: string } }> {
    return [...this.agentOfTask].map(([taskId, agentId]) => ({ task_id: { value: taskId }, agent_id: { value: agentId } }));
  }

  /** Resolves when the task reaches a terminal state, or after `timeoutMs`. */
  waitForEnd(taskId: string, timeoutMs: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.endWaiters.delete(taskId);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      this.endWaiters.set(taskId, done);
    });
  }
}
