import { fail, PASS, type Filter, type FilterRun, type FilterVerdict, type NodeTable, type PlacementRequest } from '@swarm/plugin-sdk';

const LABEL = 'containerslots';
const NO_SLOTS: FilterVerdict = fail('no available container slots');
const CONDITIONS: readonly string[] = Object.freeze(['available container slots']);
// Go's strconv.Atoi: an optional sign and decimal digits, nothing else.
const INTEGER = /^[+-]?\d+$/;
/** Distinct label texts kept parsed (a cluster has a handful; past this the cache starts over). */
const MAX_PARSED = 1024;

/**
 * Slot counts by label text, NaN for a text that is not an integer (then ignored): a cluster has few
 * distinct values, so each is parsed once rather than once per node and decision.
 */
const parsedSlots = new Map<string, number>();

function slotsOf(text: string): number {
  let slots = parsedSlots.get(text);
  if (slots === undefined) {
    slots = INTEGER.test(text) ? Number(text) : Number.NaN;
    if (parsedSlots.size >= MAX_PARSED) parsedSlots.clear();
    parsedSlots.set(text, slots);
  }
  return slots;
}

/**
 * The rows with the label, when they are few. Where most nodes carry it (a cluster that caps every
 * engine) naming them would cost more than it spares, so past an eighth of the rows the scan stops
 * and every row is checked.
 */
function labelledRows(labels: ReadonlyArray<string | undefined>): number[] | undefined {
  const most = labels.length >> 3;
  const rows: number[] = [];
  for (let row = 0; row < labels.length; row++) {
    if (labels[row] === undefined) continue;
    if (rows.length >= most) return undefined;
    rows.push(row);
  }
  return rows;
}

/** Swarm classic's containerslots filter: engine label `containerslots=N` caps all containers, stopped ones included. */
export class ContainerSlotsFilter implements Filter {
  readonly name = 'containerslots';

  prepare(_request: PlacementRequest, table: NodeTable): FilterRun {
    // The label's column: most nodes have none, and those pass without a check.
    const labels = table.label(LABEL);
    const containers = table.containerCount;
    return {
      conditions: CONDITIONS,
      rowsToCheck: labelledRows(labels),
      check: (_node, row) => {
        const text = labels[row];
        if (text === undefined) return PASS;
        const cap = slotsOf(text);
        return Number.isNaN(cap) || containers[row]! < cap ? PASS : NO_SLOTS;
      },
    };
  }
}
