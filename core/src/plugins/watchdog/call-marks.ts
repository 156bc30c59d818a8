/** Slot 0: the event loop's heartbeat; slot 1: the plugin call running now (0: none). */
export const BEAT_SLOT = 0;
export const CALL_SLOT = 1;
const SLOTS = 2;

/**
 * Where the host is in plugin code, in memory a watchdog thread can read while the event loop is
 * stuck. Each call site (plugin, hook) gets a number once; entering a call is one store into a
 * shared Int32Array and leaving it another, so marking every `check` of a placement stays cheap.
 * Plain stores, not Atomics: the watchdog reads a slot that has not changed for seconds.
 */
export class CallMarks {
  readonly slots: Int32Array;
  private readonly ids = new Map<string, number>();
  private readonly texts: string[] = [''];
  private listener: ((id: number, text: string) => void) | undefined;

  constructor(shared = false) {
    const bytes = SLOTS * Int32Array.BYTES_PER_ELEMENT;
    this.slots = new Int32Array(shared ? new SharedArrayBuffer(bytes) : new ArrayBuffer(bytes));
  }

  /** The number of a call site: `filter "spin" (swarm-plugin-spin@1.0.0) in check()`. */
  site(text: string): number {
    let id = this.ids.get(text);
    if (id === undefined) {
      id = this.texts.push(text) - 1;
      this.ids.set(text, id);
      this.listener?.(id, text);
    }
    return id;
  }

  /** Marks `id` as running; returns what ran before, for `exit`. */
  enter(id: number): number {
    const previous = this.slots[CALL_SLOT]!;
    this.slots[CALL_SLOT] = id;
    return previous;
  }

  exit(previous: number): void {
    this.slots[CALL_SLOT] = previous;
  }

  /** The site's text (`''` for none). */
  describe(id: number): string {
    return this.texts[id] ?? '';
  }

  /** Told of every site, those known already first (the watchdog keeps its own copy). */
  onSite(listener: (id: number, text: string) => void): void {
    this.listener = listener;
    this.texts.forEach((text, id) => id > 0 && listener(id, text));
  }
}
