import type { FilterPass } from './filter-pass.js';

export const NO_NODES_MESSAGE = 'No nodes available in the cluster';
const CONDITIONS_HEADER = 'Unable to find a node that satisfies the following conditions ';
/** Reason shown for nodes that passed every filter but that the strategy left out. */
export const INSUFFICIENT_RESOURCES = 'insufficient resources';

/** Index of the filter at which Swarm classic's sequential filtering ran out of nodes. */
export function exhaustingFilter(pass: FilterPass): number {
  let last = -1;
  for (const index of pass.refusedBy) last = Math.max(last, index);
  return last;
}

/**
 * Swarm classic's text when the filters leave no node: the exhausting filter's own message
 * (health), or the conditions of every filter up to and including it, one `[...]` line each.
 */
export function filtersRefusal(pass: FilterPass): string {
  const last = exhaustingFilter(pass);
  const refusal = pass.filters[last]?.run?.refusalMessage;
  if (refusal !== undefined) return refusal;
  let text = CONDITIONS_HEADER;
  for (const filter of pass.filters.slice(0, last + 1)) {
    const conditions = filter.run?.conditions ?? [];
    if (conditions.length > 0) text += `\n[${conditions.join(' ')}]`;
  }
  return text;
}

/**
 * Kubernetes-style breakdown: `0/5 nodes are available: 2 port 80 (Bridge mode), 3 constraint
 * storage==ssd.` Reasons are grouped by text, in filter order.
 */
export function availabilitySummary(pass: FilterPass, available: number, unranked: number): string {
  const groups = new Map<string, { filter: number; count: number }>();
  pass.refusals.forEach((verdict, k) => {
    if (verdict.pass) return;
    const group = groups.get(verdict.reason) ?? { filter: pass.refusedBy[k]!, count: 0 };
    group.count++;
    groups.set(verdict.reason, group);
  });
  if (unranked > 0) groups.set(INSUFFICIENT_RESOURCES, { filter: pass.filters.length, count: unranked });
  const head = `${available}/${pass.nodes.length} nodes are available`;
  if (groups.size === 0) return `${head}.`;
  const parts = [...groups].sort((a, b) => a[1].filter - b[1].filter).map(([reason, group]) => `${group.count} ${reason}`);
  return `${head}: ${parts.join(', ')}.`;
}
