import { type SwarmError } from '@swarm/plugin-sdk';
import type { FilterPass, PreparedFilter } from './pass-record.js';
import { CoreErrors } from '../errors.js';

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
  return CONDITIONS_HEADER + conditionLines(pass.filters.slice(0, last + 1));
}

/** `[conditions]` of each filter that has some for the request, one line each, as Swarm classic lists them. */
function conditionLines(filters: readonly PreparedFilter[]): string {
  let text = '';
  for (const filter of filters) {
    const conditions = filter.run?.conditions ?? [];
    if (conditions.length > 0) text += `\n[${conditions.join(' ')}]`;
  }
  return text;
}

/** What `details` of an error from a filter's refusal of the request hold, besides the filter's own. */
export interface RequestRefusalDetails {
  readonly filter: string;
  /** One line naming what was wrong, for the per-node summary. */
  readonly reason: string;
}

/**
 * A filter refused the request itself (a malformed expression): Swarm classic's text, the
 * conditions of the filters before it and `error from <filter> filter: <its message>`, then,
 * when the filter said which expression it was, that expression and how to write it. The
 * error keeps the filter's code, so nothing gets created.
 */
export function requestRefused(before: readonly PreparedFilter[], filter: string, error: SwarmError): SwarmError {
  const details = error.details ?? {};
  const expression = typeof details.expression === 'string' ? details.expression : undefined;
  const hint = typeof details.hint === 'string' ? `: ${details.hint}` : '';
  const reason = expression === undefined ? `${filter} filter: ${error.message}` : `invalid ${filter} "${expression}"`;
  let text = `${CONDITIONS_HEADER}${conditionLines(before)}\nerror from ${filter} filter: ${error.message}`;
  if (expression !== undefined) text += `\n${reason}${hint}`;
  const refusal: RequestRefusalDetails = { filter, reason };
  return CoreErrors.requestRefused(
    { code: error.code, text },
    { httpStatus: error.httpStatus, cause: error, details: { ...details, ...refusal } },
  );
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
