import { fail, PASS, type Filter, type FilterRun, type FilterVerdict, type NodeTable, type PlacementRequest } from '@swarm/plugin-sdk';

const LABEL = 'containerslots';
const NO_SLOTS: FilterVerdict = fail('no available container slots');
const CONDITIONS: readonly string[] = Object.freeze(['available container slots']);
// Go's strconv.Atoi: an optional sign and decimal digits, nothing else.
const INTEGER = /^[+-]?\d+$/;

// Label values repeat across nodes and decisions: parse each distinct one once (bounded).
const PARSED_LIMIT = 1024;
const parsed = new Map<string, number>();

/** The slot count a label value gives, or NaN when it is missing or not an integer (then ignored). */
function slotsOf(raw: string | undefined): number {
  if (raw === undefined) return Number.NaN;
  let slots = parsed.get(raw);
  if (slots === undefined) {
    if (parsed.size >= PARSED_LIMIT) parsed.clear();
    slots = INTEGER.test(raw) ? Number(raw) : Number.NaN;
    parsed.set(raw, slots);
  }
  return slots;
}

/** Swarm classic's containerslots filter: engine label `containerslots=N` caps all containers, stopped ones included. */
export class ContainerSlotsFilter implements Filter {
  readonly name = 'containerslots';

  prepare(_request: PlacementRequest, table: NodeTable): FilterRun {
    const labels = table.label(LABEL);
    const containers = table.containerCount;
    // Most nodes share a value: remember the last one parsed.
    let lastRaw: string | undefined;
    let lastSlots = Number.NaN;
    return {
      conditions: CONDITIONS,
      check: (_node, row) => {
        const raw = labels[row];
        if (raw === undefined) return PASS;
        if (raw !== lastRaw) {
          lastRaw = raw;
          lastSlots = slotsOf(raw);
        }
        return Number.isNaN(lastSlots) || containers[row]! < lastSlots ? PASS : NO_SLOTS;
      },
    };
  }
}
