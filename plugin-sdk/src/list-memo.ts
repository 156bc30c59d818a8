interface Memo<V> {
  readonly items: readonly unknown[];
  readonly value: V;
}

/**
 * Memoize something derived from a node's list (`containers()`, `images()`), for filters that
 * run on every node for every decision. The entry is reused only while the list is the same
 * array holding the same elements (compared by identity), so a driver that hands out a new list
 * or replaces, adds or removes an element in place is never answered from a stale entry.
 */
export function memoizeByList<T extends object, V>(derive: (list: readonly T[]) => V): (list: readonly T[]) => V {
  const memos = new WeakMap<readonly T[], Memo<V>>();
  const unchanged = (memo: Memo<V>, list: readonly T[]): boolean => {
    if (memo.items.length !== list.length) return false;
    for (let i = 0; i < list.length; i++) if (memo.items[i] !== list[i]) return false;
    return true;
  };
  return (list) => {
    const memo = memos.get(list);
    if (memo !== undefined && unchanged(memo, list)) return memo.value;
    const value = derive(list);
    memos.set(list, { items: [...list], value });
    return value;
  };
}
