const WINDOW_MS = 60_000;
const MAX_ENTRIES = 4096;

function remember(map: Map<string, number>, key: string, now: number): void {
  map.delete(key);
  map.set(key, now);
  for (const [oldest, at] of map) {
    if (map.size <= MAX_ENTRIES && now - at <= WINDOW_MS) break;
    map.delete(oldest);
  }
}

function recent(map: Map<string, number>, key: string, now: number): boolean {
  const at = map.get(key);
  return at !== undefined && now - at <= WINDOW_MS;
}

/**
 * A container's start or death can be told twice: by its agent's engine stream and by the task
 * status update. The engine's event wins; the update's is a fallback for when the stream is down,
 * and the engine's later copy of a fact the fallback already told is dropped once.
 */
export class EventDedup {
  private readonly fromEngine = new Map<string, number>();
  private readonly fromTasks = new Map<string, number>();

  /** Whether to publish an engine event about `containerId`. */
  engineEvent(containerId: string, action: string, now = Date.now()): boolean {
    const key = `${containerId} ${action}`;
    if (recent(this.fromTasks, key, now)) {
      this.fromTasks.delete(key);
      return false;
    }
    remember(this.fromEngine, key, now);
    return true;
  }

  /** Whether to publish the event a task update implies, given whether the engine's stream is open. */
  taskEvent(containerId: string, action: string, engineLive: boolean, now = Date.now()): boolean {
    const key = `${containerId} ${action}`;
    if (engineLive || recent(this.fromEngine, key, now)) return false;
    remember(this.fromTasks, key, now);
    return true;
  }
}
