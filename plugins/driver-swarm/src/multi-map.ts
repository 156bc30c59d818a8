/**
 * Values by key, where most keys have one value (short IDs, names): such a key holds its value
 * itself, and only a key with several gets a Set (~150 bytes each, two per container otherwise).
 * Values must not be Sets themselves.
 */
export class MultiMap<K, V extends object> {
  private readonly map = new Map<K, V | Set<V>>();

  add(key: K, value: V): void {
    const held = this.map.get(key);
    if (held === undefined) this.map.set(key, value);
    else if (held instanceof Set) held.add(value);
    else if (held !== value) this.map.set(key, new Set([held, value]));
  }

  delete(key: K, value: V): void {
    const held = this.map.get(key);
    if (held === value) {
      this.map.delete(key);
    } else if (held instanceof Set) {
      held.delete(value);
      if (held.size === 1) this.map.set(key, held.values().next().value as V);
    }
  }

  has(key: K): boolean {
    return this.map.has(key);
  }

  first(key: K): V | undefined {
    const held = this.map.get(key);
    return held instanceof Set ? held.values().next().value : held;
  }

  get(key: K): readonly V[] {
    const held = this.map.get(key);
    return held === undefined ? [] : held instanceof Set ? [...held] : [held];
  }

  *entries(): Generator<[K, readonly V[]]> {
    for (const [key, held] of this.map) yield [key, held instanceof Set ? [...held] : [held]];
  }
}
