import { MesosLabels } from './labels.js';
import type { TaskStatus } from './protocol.js';

interface StatusInspect {
  Id?: unknown;
  Config?: { Image?: unknown; Labels?: Record<string, unknown> | null };
}

/** A TASK_RUNNING update's `data`: the base64 `docker inspect` JSON array. */
function inspectFromStatus(status: TaskStatus): StatusInspect | undefined {
  if (!status.data) return undefined;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(status.data, 'base64').toString('utf8'));
    const first: unknown = Array.isArray(parsed) ? parsed[0] : parsed;
    return typeof first === 'object' && first !== null ? (first as StatusInspect) : undefined;
  } catch {
    return undefined;
  }
}

const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

export function containerIdFromStatus(status: TaskStatus): string | undefined {
  return text(inspectFromStatus(status)?.Id);
}

/** The task container's image and the name given to `docker run`, when the update carries them. */
export function containerDetailsFromStatus(status: TaskStatus): { image?: string; name?: string } {
  const config = inspectFromStatus(status)?.Config;
  const details: { image?: string; name?: string } = {};
  const image = text(config?.Image);
  const name = text(config?.Labels?.[MesosLabels.name]);
  if (image) details.image = image;
  if (name) details.name = name;
  return details;
}

/** A short human text for a failed task. */
export function describeFailure(status: TaskStatus): string {
  const detail = status.message ? `: ${status.message}` : status.reason ? ` (${status.reason})` : '';
  return `task ${status.task_id.value} ${status.state.replace(/^TASK_/, '').toLowerCase()}${detail}`;
}
