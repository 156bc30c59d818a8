import { fail, PASS, type Filter, type FilterRun, type FilterVerdict, type Node } from '@swarm/plugin-sdk';

const LABEL = 'containerslots';
const NO_SLOTS: FilterVerdict = fail('no available container slots');
// Go's strconv.Atoi: an optional sign and decimal digits, nothing else.
const INTEGER = /^[+-]?\d+$/;

/** The node's slot count, or undefined when the label is missing or not an integer (then ignored). */
function slotsOf(node: Node): number | undefined {
  const raw = node.labels()[LABEL];
  return raw !== undefined && INTEGER.test(raw) ? Number(raw) : undefined;
}

/** Swarm classic's containerslots filter: engine label `containerslots=N` caps all containers, stopped ones included. */
export class ContainerSlotsFilter implements Filter {
  readonly name = 'containerslots';

  private readonly run: FilterRun = Object.freeze({
    conditions: ['available container slots'],
    check: (node: Node) => {
      const slots = slotsOf(node);
      return slots === undefined || node.containers().length < slots ? PASS : NO_SLOTS;
    },
  });

  prepare(): FilterRun {
    return this.run;
  }
}
