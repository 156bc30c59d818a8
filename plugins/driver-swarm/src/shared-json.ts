/**
 * One copy of equal JSON parts across the cluster. Containers on many engines repeat the same
 * HostConfig defaults, labels, env, image IDs and empty lists: at 30,000 containers keeping one
 * copy of each instead of one per container is most of what a node keeps per container.
 *
 * Shared objects and arrays are frozen, as every holder sees them. The pool holds them weakly,
 * so a value no container uses any more goes away.
 */

const MAX_SHARED_STRING = 256;
const STRING_SLOTS = 8192;

function mix(hash: number, value: number): number {
  return Math.imul(hash ^ value, 0x01000193) >>> 0;
}

/** A cheap hash (length and a few characters): values with equal hashes are compared anyway. */
function stringHash(text: string): number {
  let hash = mix(0x811c9dc5, text.length);
  const step = Math.max(1, text.length >> 3);
  for (let at = text.length - 1; at >= 0; at -= step) hash = mix(hash, text.charCodeAt(at));
  return hash;
}

/**
 * Strings seen lately, one per slot by hash: a string seen again is given as the copy in its
 * slot. Strings that repeat across containers come back long before another string takes their
 * slot; unique ones (IDs, addresses) just pass through; at most STRING_SLOTS strings are held, and
 * long ones, rarely repeated, are left out. No Map, no allocation: a Map, or V8's own string table
 * reached through property keys, costs several times more per lookup.
 */
function sharedString(slots: string[], text: string, hash: number): string {
  if (text.length > MAX_SHARED_STRING) return text;
  const slot = hash & (STRING_SLOTS - 1);
  const seen = slots[slot];
  if (seen === text) return seen;
  slots[slot] = text;
  return text;
}

/** `copy[key] = value`, also for a key named `__proto__` (JSON may have one; assigning it would set the prototype). */
function setField(copy: object, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(copy, key, { value, enumerable: true, writable: true, configurable: true });
  else (copy as Record<string, unknown>)[key] = value;
}

/** Whether a shared object has these keys and (shared, so identical) values, in this order. */
function holds(candidate: object, isArray: boolean, keys: readonly string[], values: readonly unknown[]): boolean {
  if (Array.isArray(candidate) !== isArray) return false;
  const candidateKeys = Object.keys(candidate);
  if (candidateKeys.length !== keys.length) return false;
  const record = candidate as Record<string, unknown>;
  return candidateKeys.every((key, at) => key === keys[at] && record[key] === values[at]);
}

type Bucket = WeakRef<object> | Array<WeakRef<object>>;

/** One cluster's pool (two embedded deployments share nothing, equal values included). */
export class JsonPool {
  private readonly stringSlots: string[] = new Array<string>(STRING_SLOTS).fill('');
  /** Shared object → its hash (also tells an object is already shared). */
  private readonly hashes = new WeakMap<object, number>();
  private readonly buckets = new Map<number, Bucket>();
  private added = 0;
  private sweepAt = 1024;
  /** The hash of the value `share` returned last (saves a tuple per value). */
  private lastHash = 0;

  share<T>(value: T): T {
    if (typeof value === 'string') {
      this.lastHash = stringHash(value);
      return sharedString(this.stringSlots, value, this.lastHash) as T;
    }
    if (typeof value !== 'object' || value === null) {
      this.lastHash = value === null ? 1 : typeof value === 'number' ? mix(2, (value * 1000) | 0) : value ? 3 : 4;
      return value;
    }
    const known = this.hashes.get(value);
    if (known !== undefined) {
      this.lastHash = known;
      return value;
    }
    const isArray = Array.isArray(value);
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record);
    const values: unknown[] = [];
    let hash = isArray ? 5 : 6;
    for (const key of keys) {
      values.push(this.share(record[key]));
      hash = mix(mix(hash, stringHash(key)), this.lastHash);
    }
    this.lastHash = hash;
    return (this.find(hash, isArray, keys, values) ?? this.add(hash, isArray, keys, values)) as T;
  }

  private find(hash: number, isArray: boolean, keys: readonly string[], values: readonly unknown[]): object | undefined {
    const bucket = this.buckets.get(hash);
    if (bucket === undefined) return undefined;
    for (const ref of Array.isArray(bucket) ? bucket : [bucket]) {
      const candidate = ref.deref();
      if (candidate !== undefined && holds(candidate, isArray, keys, values)) return candidate;
    }
    return undefined;
  }

  /** A new frozen copy: the caller's object stays as it is (and a fresh `{}` shares hidden classes, a spread copy may not). */
  private add(hash: number, isArray: boolean, keys: readonly string[], values: readonly unknown[]): object {
    let value: object;
    if (isArray) {
      value = values.slice();
    } else {
      value = {};
      keys.forEach((key, at) => setField(value, key, values[at]));
    }
    Object.freeze(value);
    this.hashes.set(value, hash);
    const ref = new WeakRef(value);
    const bucket = this.buckets.get(hash);
    this.buckets.set(hash, bucket === undefined ? ref : Array.isArray(bucket) ? [...bucket, ref] : [bucket, ref]);
    if (++this.added >= this.sweepAt) this.sweep();
    return value;
  }

  /** Drops what no one holds any more; runs again once the pool has doubled. */
  private sweep(): void {
    for (const [hash, bucket] of this.buckets) {
      const alive = (Array.isArray(bucket) ? bucket : [bucket]).filter((ref) => ref.deref() !== undefined);
      if (alive.length === 0) this.buckets.delete(hash);
      else this.buckets.set(hash, alive.length === 1 ? (alive[0] as WeakRef<object>) : alive);
    }
    this.added = 0;
    this.sweepAt = Math.max(1024, this.buckets.size);
  }
}

/**
 * Replaces the fields of an object the caller owns (a row, a state: unique to one container, so
 * not worth pooling) by their shared copies from `pool`, and returns it. `field` picks another
 * treatment for some fields.
 */
export function shareFields<T extends object>(
  pool: JsonPool,
  value: T,
  field: (key: string, value: unknown) => unknown = (_key, item) => pool.share(item),
): T {
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) setField(record, key, field(key, record[key]));
  return value;
}
