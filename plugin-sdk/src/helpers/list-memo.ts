interface Memo<V> {
  readonly length: number;
  readonly first: unknown;
  readonly last: unknown;
  readonly value: V;
}

/**
 * Memoize something derived from a node's list (`containers()`, `images()`), for filters that
 * run on every node for every decision. The entry is reused while the list is the same array
 * with the same length and the same first and last elements: drivers hand out a new array when
 * a list changes (as the swarm driver does), and pushes, pops and edits at the ends of an array
 * changed in place are caught too. Checking every element would touch every container of every
 * node on each decision, which at thousands of nodes costs more than the derivation saves.
 */
export function memoizeByList<T extends object, V>(derive: (list: readonly T[]) => V): (list: readonly T[]) => V {
  const memos = new WeakMap<readonly T[], Memo<V>>();
  const unchanged = (memo: Memo<V>, list: readonly T[]): boolean =>
    memo.length === list.length && memo.first === list[0] && memo.last === list[list.length - 1];
  return (list) => {
    const memo = memos.get(list);
    if (memo !== undefined && unchanged(memo, list)) return memo.value;
    const value = derive(list);
    memos.set(list, { length: list.length, first: list[0], last: list[list.length - 1], value });
    return value;
  };
}
