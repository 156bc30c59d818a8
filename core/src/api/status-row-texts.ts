type StatusRow = readonly [string, string];

/** A node's rows (from its ` name` row to the next node's) and their encoding, after a separating comma. */
interface EncodedRun {
  readonly rows: readonly StatusRow[];
  readonly encoded: Buffer;
}

/** Consecutive runs copied together, so a call writes a few dozen parts and copies only blocks that changed. */
interface EncodedBlock {
  readonly runs: readonly EncodedRun[];
  readonly encoded: Buffer;
}

const RUNS_PER_BLOCK = 64;

/** Swarm classic starts each node's rows with ` name  addr`; the rows under it are indented further. */
const startsNode = (row: StatusRow): boolean => row[0].startsWith(' ') && !row[0].startsWith('  ');

const OPEN = Buffer.from('[');
const CLOSE = Buffer.from(']');

/**
 * `docker info`'s SystemStatus as UTF-8 JSON, one per API server. Drivers that keep a node's rows
 * while the node is unchanged hand back the same row objects: each node's rows are encoded once,
 * kept by the identity of its first row (checked row by row), and blocks of 64 nodes are kept by
 * the identity of their nodes' encodings. An answer is then a few dozen kept buffers written in
 * order: serialising thousands of nodes' rows on each call, and allocating megabytes for each
 * answer (which drives V8 to full collections), is what made `info` slow at 5,000 nodes.
 */
export class StatusRowTexts {
  private readonly runs = new WeakMap<StatusRow, EncodedRun>();
  private readonly blocks = new WeakMap<EncodedRun, EncodedBlock>();

  /** The rows as a JSON array, in encoded parts to be written in order. */
  encode(rows: readonly StatusRow[]): Buffer[] {
    const runs: EncodedRun[] = [];
    for (let index = 0; index < rows.length;) {
      const run = this.run(rows, index);
      runs.push(run);
      index += run.rows.length;
    }
    const parts: Buffer[] = [OPEN];
    for (let first = 0; first < runs.length; first += RUNS_PER_BLOCK) {
      const block = this.block(runs, first);
      // the first run's separating comma is not written
      parts.push(first === 0 ? block.encoded.subarray(1) : block.encoded);
    }
    parts.push(CLOSE);
    return parts;
  }

  private run(rows: readonly StatusRow[], start: number): EncodedRun {
    const first = rows[start]!;
    const kept = this.runs.get(first);
    if (kept !== undefined && kept.rows.every((row, offset) => rows[start + offset] === row)) return kept;
    let end = start + 1;
    while (end < rows.length && !startsNode(rows[end]!)) end++;
    const own = rows.slice(start, end);
    const run = { rows: own, encoded: Buffer.from(`,${own.map((row) => JSON.stringify(row)).join(',')}`, 'utf8') };
    this.runs.set(first, run);
    return run;
  }

  private block(runs: readonly EncodedRun[], start: number): EncodedBlock {
    const own = runs.slice(start, start + RUNS_PER_BLOCK);
    const kept = this.blocks.get(own[0]!);
    if (kept !== undefined && kept.runs.length === own.length && kept.runs.every((run, offset) => own[offset] === run)) return kept;
    const block = { runs: own, encoded: Buffer.concat(own.map((run) => run.encoded)) };
    this.blocks.set(own[0]!, block);
    return block;
  }
}
