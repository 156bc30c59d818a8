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
 *
 * Rows at the same positions as in the last answer are first compared with it, pointer by pointer
 * over two contiguous arrays; only the nodes whose rows moved or changed are looked up by identity,
 * which would otherwise touch every node's kept encoding (a cache miss each) on every call.
 */
export class StatusRowTexts {
  private readonly runs = new WeakMap<StatusRow, EncodedRun>();
  private readonly blocks = new WeakMap<EncodedRun, EncodedBlock>();
  private last: { rows: StatusRow[]; runs: readonly EncodedRun[]; starts: readonly number[] } | undefined;

  /** The rows as a JSON array, in encoded parts to be written in order. */
  encode(rows: readonly StatusRow[]): Buffer[] {
    const runs: EncodedRun[] = [];
    const starts: number[] = [];
    /** Starts of the runs not found at the same positions in the last answer. */
    const moved: number[] = [];
    let lastRun = 0;
    for (let index = 0; index < rows.length;) {
      let run: EncodedRun | undefined;
      if (this.last) {
        const { starts: lastStarts } = this.last;
        while (lastRun < lastStarts.length && lastStarts[lastRun]! < index) lastRun++;
        if (lastStarts[lastRun] === index) run = this.unchanged(rows, lastRun);
      }
      if (run === undefined) {
        run = this.run(rows, index);
        moved.push(runs.length);
      }
      starts.push(index);
      runs.push(run);
      index += run.rows.length;
    }
    this.keep(rows, runs, starts, moved);
    const parts: Buffer[] = [OPEN];
    for (let first = 0; first < runs.length; first += RUNS_PER_BLOCK) {
      const block = this.block(runs, first);
      // the first run's separating comma is not written
      parts.push(first === 0 ? block.encoded.subarray(1) : block.encoded);
    }
    parts.push(CLOSE);
    return parts;
  }

  /**
   * Keeps the rows as they were encoded, for the next call's comparison: a copy, as the caller may
   * reuse its array, updated only where runs changed (copying 50,000 rows takes milliseconds).
   */
  private keep(rows: readonly StatusRow[], runs: readonly EncodedRun[], starts: readonly number[], moved: readonly number[]): void {
    const kept = this.last?.rows;
    if (kept === undefined || kept.length !== rows.length) {
      this.last = { rows: rows.slice(), runs, starts };
      return;
    }
    for (const at of moved) {
      const start = starts[at]!;
      for (let index = start; index < start + runs[at]!.rows.length; index++) kept[index] = rows[index]!;
    }
    this.last = { rows: kept, runs, starts };
  }

  /** The last answer's run `at`, if `rows` hold the same row objects at its positions. */
  private unchanged(rows: readonly StatusRow[], at: number): EncodedRun | undefined {
    const last = this.last!;
    const start = last.starts[at]!;
    const end = last.starts[at + 1] ?? last.rows.length;
    if (end > rows.length) return undefined;
    for (let index = start; index < end; index++) if (rows[index] !== last.rows[index]) return undefined;
    return last.runs[at];
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
