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

/** Swarm classic's containerslots filter: engine label `containerslots=N` caps all containers, stopped ones included. */
export class ContainerSlotsFilter implements Filter {
  readonly name = 'containerslots';

  prepare(_request: PlacementRequest, table: NodeTable): FilterRun {
    // Parsed once per node until it changes (a derived column), not once per decision.
    const slots = table.derived('containerslots:slots', slotsOf);
    const containers = table.containerCount;
    return {
      conditions: CONDITIONS,
      check: (_node, row) => {
        const cap = slots(row);
        return Number.isNaN(cap) || containers[row]! < cap ? PASS : NO_SLOTS;
      },
    };
  }
}
