import { asciiChart } from './chart.js';
import type { Fault, Failure, FailureClass } from './faults.js';
import { RM_SETTLE_MS, type LoadCounts } from './load.js';
import type { Sample } from './sampler.js';
import type { Check } from './verdict.js';

export interface RunReport {
  date: string;
  machine: string;
  load: { start: string; end: string };
  command: string;
  minutes: number;
  baseMinute: number;
  engines: number;
  checks: Check[];
  samples: Sample[];
  counts: LoadCounts;
  faults: Fault[];
  failures: Array<Failure & { class: FailureClass; t: number }>;
  bStarts: number;
  /** Calls sent again after the manager closed the idle keep-alive connection under them (`ApiClient.call`). */
  resent: { a: number; b: number };
}

const f1 = (value: number | undefined): string => (value === undefined ? '' : value.toFixed(1));
const max = (values: Array<number | undefined>): number | undefined => {
  const defined = values.filter((v): v is number => v !== undefined);
  return defined.length === 0 ? undefined : Math.max(...defined);
};
const last = (values: Array<number | undefined>): number | undefined => values.filter((v) => v !== undefined).at(-1);

function minuteTable(report: RunReport): string[] {
  const lines = [
    '| minute | calls | failed (explained) | A RSS MB | A heap after GC MB | A fds | A sockets | loop delay p50 / p99 / max ms | B RSS MB |',
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: |',
  ];
  for (let minute = 0; minute < report.minutes; minute++) {
    const inMinute = report.samples.filter((s) => s.t > minute * 60 && s.t <= (minute + 1) * 60);
    const failures = report.failures.filter((f) => Math.floor(f.t / 60) === minute);
    const explained = failures.filter((f) => f.class !== 'unexplained').length;
    lines.push(
      `| ${minute + 1} | ${report.counts.perMinute[minute] ?? 0} | ${failures.length} (${explained}) | ${f1(last(inMinute.map((s) => s.rssMb)))} | ${f1(last(inMinute.map((s) => s.heapAfterGcMb)))} | ${last(inMinute.map((s) => s.fds)) ?? ''} | ${last(inMinute.map((s) => s.sockets)) ?? ''} | ${f1(max(inMinute.map((s) => s.loopP50)))} / ${f1(max(inMinute.map((s) => s.loopP99)))} / ${f1(max(inMinute.map((s) => s.loopMax)))} | ${f1(last(inMinute.map((s) => s.bRssMb)))} |`,
    );
  }
  return lines;
}

function failureTable(report: RunReport): string[] {
  const groups = new Map<string, { count: number; example: string }>();
  for (const failure of report.failures) {
    const key = `${failure.class} | ${failure.op} | ${failure.manager} | ${failure.status || 'no answer'}`;
    const group = groups.get(key) ?? { count: 0, example: failure.message.replace(/\s+/g, ' ').replaceAll('|', '/').slice(0, 120) };
    group.count++;
    groups.set(key, group);
  }
  if (groups.size === 0) return ['No request failed.'];
  return [
    '| explained by | request | to | status | count | example |',
    '| --- | --- | --- | --- | ---: | --- |',
    ...[...groups].sort((x, y) => y[1].count - x[1].count).map(([key, group]) => `| ${key} | ${group.count} | ${group.example} |`),
  ];
}

function verdictCell(check: Check): string {
  if (check.kind === 'not judged') return `not judged (${check.ok ? 'within' : 'beyond'} the bound)`;
  return check.ok ? 'ok' : '**FAIL**';
}

export function renderReport(report: RunReport): string {
  const ok = report.checks.every((check) => check.ok || check.kind === 'not judged');
  const series = (key: keyof Sample) => report.samples.filter((s) => s[key] !== undefined).map((s) => ({ t: s.t, v: s[key]! }));
  const failovers = report.faults.filter((fault) => fault.kind === 'failover');
  const count = (kind: Fault['kind']) => report.faults.filter((fault) => fault.kind === kind).length;
  return [
    `## Soak, ${report.minutes} minutes: ${ok ? 'PASS' : 'FAIL'}`,
    '',
    `- Date: ${report.date}; machine: ${report.machine}`,
    `- Load average at start / end: ${report.load.start} / ${report.load.end}`,
    `- Command: \`${report.command}\``,
    `- ${report.engines} hollow engines; growth measured from minute ${report.baseMinute} to the end (a window of ${Math.max(30, report.minutes * 2)} s at each end: the median, for the heap after GC the smallest sample)`,
    `- Faults: ${failovers.length} failovers (${failovers.map((f) => f.detail).join('; ')}), ${count('engine-down')} engine flaps, ${count('entry-removed')} discovery entries removed and restored; B started ${report.bStarts} times`,
    `- Calls sent again because the manager closed an idle keep-alive connection as they went out on it (not counted twice): ${report.resent.a} to A, ${report.resent.b} to B`,
    `- rm calls that failed on a fault yet removed the container (the engines no longer held it ${RM_SETTLE_MS / 1000} s later; not used again): ${report.counts.removedUnanswered}`,
    `- Calls by kind: ${[...report.counts.byOp].map(([op, c]) => `${op} ${c.calls}${c.failed ? ` (${c.failed} failed)` : ''}`).join(', ')}`,
    '',
    '| check | at the baseline | at the end | bound | |',
    '| --- | --- | --- | --- | --- |',
    ...report.checks.map((check) => `| ${check.name} | ${check.baseline} | ${check.end} | ${check.bound} | ${verdictCell(check)} |`),
    '',
    'Failed requests, by what explains them:',
    '',
    ...failureTable(report),
    '',
    'Per minute (the last sample of each minute; loop delay: the worst 10-second interval; /proc figures every 2 s, the rest every 10 s):',
    '',
    ...minuteTable(report),
    '',
    '```',
    ...asciiChart('A: RSS', series('rssMb'), 'MB'),
    '',
    ...asciiChart('A: heap after a full GC', series('heapAfterGcMb'), 'MB'),
    '',
    ...asciiChart('A: open file descriptors', series('fds'), 'count'),
    '',
    ...asciiChart('A: event-loop delay p99 per 10 s', series('loopP99'), 'ms'),
    '```',
    '',
  ].join('\n');
}
