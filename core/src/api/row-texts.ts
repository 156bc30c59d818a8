import type { Container, ContainerSummary } from '@swarm/plugin-sdk';

type StatusRow = readonly [string, string];

interface RowText {
  readonly labels: Container['labels'];
  readonly nodeName: string;
  readonly nodeIp: string;
  readonly healthy: boolean;
  readonly text: string;
}

/**
 * Each container's `docker ps` row as JSON text, kept while what it is made of is the same: the
 * engine's summary (drivers replace it, never change it), the container's labels, its node's name,
 * IP and health. Serialising the rows was most of the front's time for a list; a row is rebuilt
 * only after its container changed. One per API server (deployments share nothing), held weakly
 * by the summaries so removed containers take their rows with them.
 */
export class RowTexts {
  private readonly rows = new WeakMap<ContainerSummary, RowText>();

  text(container: Container, present: (container: Container) => unknown): string {
    const { summary, labels, node } = container;
    const healthy = node.isHealthy();
    const kept = this.rows.get(summary);
    if (kept && kept.labels === labels && kept.nodeName === node.name && kept.nodeIp === node.ip && kept.healthy === healthy)
      return kept.text;
    const text = JSON.stringify(present(container));
    this.rows.set(summary, { labels, nodeName: node.name, nodeIp: node.ip, healthy, text });
    return text;
  }
}

/** A node's rows (from its ` name` row to the next node's) and their encoding, after a separating comma. */
interface EncodedRun {
  readonly rows: readonly StatusRow[];
  readonly encoded: Buffer;
}

/** Swarm classic starts each node's rows with ` name  addr`; the rows under it are indented further. */
const startsNode = (row: StatusRow): boolean => row[0].startsWith(' ') && !row[0].startsWith('  ');

/**
 * `docker info`'s SystemStatus as UTF-8 JSON. Drivers that keep a node's rows while the node is
 * unchanged hand back the same row objects: each node's rows are encoded once and kept by the
 * identity of its first row (checked row by row), so a list of thousands of nodes is copied
 * together rather than serialised and encoded again (its `└` makes V8 hold the joined text as
 * two-byte characters, which encoding walks in full). One per API server.
 */
export class StatusRowTexts {
  private readonly runs = new WeakMap<StatusRow, EncodedRun>();

  /** The rows as a JSON array, in encoded parts to be written in order. */
  encode(rows: readonly StatusRow[]): Buffer[] {
    const parts: Buffer[] = [OPEN];
    for (let index = 0; index < rows.length;) {
      const run = this.run(rows, index);
      // one part per node, comma included: copying many small parts together costs per part
      parts.push(index === 0 ? run.encoded.subarray(1) : run.encoded);
      index += run.rows.length;
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
}

const OPEN = Buffer.from('[');
const CLOSE = Buffer.from(']');
