import { fail, PASS, type Filter, type FilterRun, type FilterVerdict, type Node } from '@swarm/plugin-sdk';

const LABEL = 'containerslots';
const NO_SLOTS: FilterVerdict = fail('no available container slots');
// Go's strconv.Atoi: an optional sign and decimal digits, nothing else.
const INTEGER = /^[+-]?\d+$/;

// Label values repeat across nodes and decisions: parse each distinct one once (bounded).
const PARSED_LIMIT = 1024;
const parsed = new Map<string, number>();

/** The node's slot count, or NaN when the label is missing or not an integer (then ignored). */
function slotsOf(node: Node): number {
  const raw = node.labels()[LABEL];
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

  private readonly run: FilterRun = Object.freeze({
    conditions: ['available container slots'],
    check: (node: Node) => {
      const slots = slotsOf(node);
      return Number.isNaN(slots) || node.containers().length < slots ? PASS : NO_SLOTS;
    },
  });

  prepare(): FilterRun {
    return this.run;
  }
}
