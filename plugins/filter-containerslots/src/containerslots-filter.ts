import {
  fail,
  PASS,
  type Filter,
  type FilterRun,
  type FilterVerdict,
  type Node,
  type NodeTable,
  type PlacementRequest,
} from '@swarm/plugin-sdk';

const LABEL = 'containerslots';
const NO_SLOTS: FilterVerdict = fail('no available container slots');
const CONDITIONS: readonly string[] = Object.freeze(['available container slots']);
// Go's strconv.Atoi: an optional sign and decimal digits, nothing else.
const INTEGER = /^[+-]?\d+$/;

/** The node's slot count, or NaN when the label is missing or not an integer (then ignored). */
function slotsOf(node: Node): number {
  const raw = node.labels()[LABEL];
  return raw !== undefined && INTEGER.test(raw) ? Number(raw) : Number.NaN;
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
    // The label's column: most nodes have none, and those pass without a check. The slot count is
    // parsed once per node until it changes (a derived column), not once per decision.
    const labels = table.label(LABEL);
    const slots = table.derived('containerslots:slots', slotsOf);
    const containers = table.containerCount;
    return {
      conditions: CONDITIONS,
      rowsToCheck: labelledRows(labels),
      check: (_node, row) => {
        const cap = slots(row);
        return Number.isNaN(cap) || containers[row]! < cap ? PASS : NO_SLOTS;
      },
    };
  }
}
