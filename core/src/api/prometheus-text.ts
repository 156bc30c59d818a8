/**
 * The few metric kinds `/_swarm/metrics` needs, written in Prometheus' text exposition format
 * (version 0.0.4). Kept here rather than taken from prom-client: that client loads its push
 * gateway's HTTPS, TLS, zlib and cluster support at import, for a format of a few lines
 * (the memory it cost: test/bench/results/api-overhead.md).
 */

export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

type Labels<L extends string> = Readonly<Record<L, string>>;

interface Family {
  /** The family's samples, one line each, without the HELP and TYPE lines. */
  samples(): string[];
  readonly name: string;
  readonly help: string;
  readonly type: 'counter' | 'gauge' | 'histogram';
}

function escapeHelp(text: string): string {
  return text.replaceAll('\\', '\\\\').replaceAll('\n', '\\n');
}

function escapeLabelValue(value: string): string {
  return value.replaceAll('\\', '\\\\').replaceAll('"', '\\"').replaceAll('\n', '\\n');
}

function formatNumber(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}

function labelText(pairs: ReadonlyArray<readonly [string, string]>): string {
  return pairs.length === 0 ? '' : `{${pairs.map(([name, value]) => `${name}="${escapeLabelValue(value)}"`).join(',')}}`;
}

/** Series are kept by their label values in `labelNames` order, joined with a byte no value holds. */
class Series<L extends string, V> {
  private readonly byKey = new Map<string, { labels: Array<readonly [string, string]>; value: V }>();

  constructor(private readonly labelNames: readonly L[]) {}

  get(labels: Labels<L> | undefined, create: () => V): V {
    return this.entry(labels, create).value;
  }

  set(labels: Labels<L> | undefined, value: V): void {
    this.entry(labels, () => value).value = value;
  }

  private entry(labels: Labels<L> | undefined, create: () => V): { labels: Array<readonly [string, string]>; value: V } {
    const values = this.labelNames.map((name) => labels?.[name] ?? '');
    const key = values.join('\u0000');
    let entry = this.byKey.get(key);
    if (entry === undefined) {
      entry = { labels: this.labelNames.map((name, index) => [name, values[index]!] as const), value: create() };
      this.byKey.set(key, entry);
    }
    return entry;
  }

  clear(): void {
    this.byKey.clear();
  }

  entries(): IterableIterator<{ labels: Array<readonly [string, string]>; value: V }> {
    return this.byKey.values();
  }

  /** A line per series; a family without labels shows 0 until it has a value, as prom-client does. */
  lines(name: string, valueOf: (value: V) => number): string[] {
    if (this.labelNames.length === 0 && this.byKey.size === 0) return [`${name} 0`];
    return [...this.byKey.values()].map(({ labels, value }) => `${name}${labelText(labels)} ${formatNumber(valueOf(value))}`);
  }
}

export interface FamilyOptions<L extends string> {
  readonly name: string;
  readonly help: string;
  readonly labelNames?: readonly L[];
}

/** A count that only goes up; without labels it is shown (as 0) before its first increment. */
export class CounterFamily<L extends string = never> implements Family {
  readonly type = 'counter';
  readonly name: string;
  readonly help: string;
  private readonly series: Series<L, { count: number }>;

  constructor({ name, help, labelNames = [] }: FamilyOptions<L>) {
    this.name = name;
    this.help = help;
    this.series = new Series(labelNames);
  }

  inc(labels?: Labels<L>): void {
    this.series.get(labels, () => ({ count: 0 })).count++;
  }

  samples(): string[] {
    return this.series.lines(this.name, (value) => value.count);
  }
}

/** A value read when the metrics are: `collect` sets the series afresh on every scrape. */
export class GaugeFamily<L extends string = never> implements Family {
  readonly type = 'gauge';
  readonly name: string;
  readonly help: string;
  private readonly series: Series<L, number>;

  constructor(
    { name, help, labelNames = [] }: FamilyOptions<L>,
    private readonly collect: (set: (value: number, labels?: Labels<L>) => void) => void,
  ) {
    this.name = name;
    this.help = help;
    this.series = new Series(labelNames);
  }

  samples(): string[] {
    this.series.clear();
    this.collect((value, labels) => this.series.set(labels, value));
    return this.series.lines(this.name, (value) => value);
  }
}

/** Observations counted in cumulative buckets (upper bounds, ascending), with their sum and count. */
export class HistogramFamily<L extends string = never> implements Family {
  readonly type = 'histogram';
  readonly name: string;
  readonly help: string;
  private readonly series: Series<L, { counts: number[]; sum: number; count: number }>;

  constructor(
    options: FamilyOptions<L>,
    private readonly buckets: readonly number[],
  ) {
    this.name = options.name;
    this.help = options.help;
    this.series = new Series(options.labelNames ?? []);
  }

  observe(labels: Labels<L>, value: number): void {
    const entry = this.series.get(labels, () => ({ counts: this.buckets.map(() => 0), sum: 0, count: 0 }));
    const bucket = this.buckets.findIndex((bound) => value <= bound);
    if (bucket !== -1) entry.counts[bucket]!++;
    entry.sum += value;
    entry.count++;
  }

  samples(): string[] {
    const lines: string[] = [];
    for (const { labels, value } of this.series.entries()) {
      let cumulative = 0;
      this.buckets.forEach((bound, index) => {
        cumulative += value.counts[index]!;
        lines.push(`${this.name}_bucket${labelText([['le', formatNumber(bound)], ...labels])} ${cumulative}`);
      });
      lines.push(`${this.name}_bucket${labelText([['le', '+Inf'], ...labels])} ${value.count}`);
      lines.push(`${this.name}_sum${labelText(labels)} ${formatNumber(value.sum)}`);
      lines.push(`${this.name}_count${labelText(labels)} ${value.count}`);
    }
    return lines;
  }
}

/** The families of one server, in the order they are shown. */
export class MetricsRegistry {
  private readonly families: Family[] = [];

  register<F extends Family>(family: F): F {
    this.families.push(family);
    return family;
  }

  /** Every family: HELP, TYPE, then its samples; families apart by a blank line. */
  render(): string {
    return this.families
      .map((family) => {
        const head = [`# HELP ${family.name} ${escapeHelp(family.help)}`, `# TYPE ${family.name} ${family.type}`];
        return `${[...head, ...family.samples()].join('\n')}\n`;
      })
      .join('\n');
  }
}
