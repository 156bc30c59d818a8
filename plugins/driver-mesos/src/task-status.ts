import type { TaskStatus } from './protocol.js';

/** The container ID in a TASK_RUNNING update: `data` is the base64 `docker inspect` JSON array. */
export function containerIdFromStatus(status: TaskStatus): string | undefined {
  if (!status.data) return undefined;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(status.data, 'base64').toString('utf8'));
    const first: unknown = Array.isArray(parsed) ? parsed[0] : parsed;
    const id = (first as { Id?: unknown } | undefined)?.Id;
    return typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
}

/** A short human text for a failed task. */
export function describeFailure(status: TaskStatus): string {
  const detail = status.message ? `: ${status.message}` : status.reason ? ` (${status.reason})` : '';
  return `task ${status.task_id.value} ${status.state.replace(/^TASK_/, '').toLowerCase()}${detail}`;
}
