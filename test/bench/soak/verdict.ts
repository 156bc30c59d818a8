import { median } from '../core-machine.js';
import type { LoopDelay } from './inspector.js';
import type { Sample } from './sampler.js';

/** ≥ 1,000,000 calls an hour (issue 34), as a rate any run length is held to. */
export const CALLS_PER_SECOND_TARGET = 1_000_000 / 3600;
/**
 * +10 % from minute 10 to the end of the hour. A run shorter than 10 minutes starts from minute 1,
 * still in warm-up: the manager's bounded buffers (10,000 events kept for `docker events --since`,
 * 10,000 exec IDs) are still filling at the lower rates a shared machine allows, so the short run's
 * bound is +20 %; it catches gross leaks only, the hour's run is the real test.
 */
export const growthBound = (minutes: number): number => (minutes >= 10 ? 0.1 : 0.2);
/** Descriptors in use by requests in flight at the moment of a sample: the loops' own concurrency. */
const FD_SLACK = 10;
const LOOP_P99_BOUND_MS = 50;
/**
 * Each end of the growth comparison is a window of samples: 30 s in a short run, 2 s a minute of
 * run (2 minutes of the hour) so that it spans whole periods of the heap's sawtooth between full
 * collections.
 */
export const windowSeconds = (minutes: number): number => Math.max(30, minutes * 2);

export interface Check {
  /**
   * `leak` and `correct` hold on any machine; `capacity` (the call rate reached, the event loop's
   * delay) also measures the machine, which on a shared, loaded one can fail them on its own;
   * `not judged`: shown only (descriptors in a run shorter than 10 minutes, see `checks`).
   */
  kind: 'leak' | 'correct' | 'capacity' | 'not judged';
  name: string;
  /** The figure judged, for summaries over runs: growth in %, ms, calls/s, a count. */
  value?: number | undefined;
  baseline: string;
  end: string;
  bound: string;
  ok: boolean;
}

export interface VerdictInput {
  minutes: number;
  /** The minute growth is measured from: 10 in the hour's run, scaled down for shorter ones. */
  baseMinute: number;
  samples: readonly Sample[];
  loopTotal: LoopDelay | undefined;
  /** An idle Node process's, over the same time (idle-baseline.ts). */
  loopIdle: LoopDelay | undefined;
  calls: number;
  unexplained: number;
  truthful: boolean;
  truthDetail: string;
  aCrashed: boolean;
}

/** The baseline minute: 10 of 60, the same sixth of a shorter run, at least minute 1. */
export function baseMinuteFor(minutes: number): number {
  return Math.max(1, Math.round(minutes / 6));
}

/** The median of a window, or for the heap its smallest value: the sawtooth's trough, what is always retained. */
function windowValue(samples: readonly Sample[], from: number, to: number, key: keyof Sample): number | undefined {
  const values = samples.filter((s) => s.t >= from && s.t < to && s[key] !== undefined).map((s) => s[key]!);
  if (values.length === 0) return undefined;
  return key === 'heapAfterGcMb' ? Math.min(...values) : median(values);
}

const fmt = (value: number | undefined, unit: string, digits = 1): string =>
  value === undefined ? 'n/a' : `${value.toFixed(digits)}${unit}`;

export function checks(input: VerdictInput): Check[] {
  const base = input.baseMinute * 60;
  const end = input.minutes * 60;
  // A takeover's backlog opens connections to engines that close only after ~95 s idle: a short
  // run's end window falls inside that, so its descriptor counts are shown, not judged.
  const fdKind = input.minutes >= 10 ? 'leak' : 'not judged';
  const growth = (key: keyof Sample, label: string, unit: string, slack: number, digits: number, kind: Check['kind'] = 'leak'): Check => {
    const window = windowSeconds(input.minutes);
    const before = windowValue(input.samples, base, base + window, key);
    const after = windowValue(input.samples, end - window, end + 1, key);
    const bound = growthBound(input.minutes);
    const limit = before === undefined ? undefined : before * (1 + bound) + slack;
    const change = before === undefined || after === undefined ? undefined : (after / before - 1) * 100;
    return {
      kind,
      name: label,
      value: change,
      baseline: fmt(before, unit, digits),
      end: `${fmt(after, unit, digits)} (${change === undefined ? 'n/a' : `${change >= 0 ? '+' : ''}${change.toFixed(1)} %`})`,
      bound: `≤ ${fmt(limit, unit, digits)} (+${bound * 100} %${slack ? ` +${slack}` : ''})`,
      ok: limit !== undefined && after !== undefined && after <= limit,
    };
  };
  const rate = input.calls / end;
  return [
    growth('rssMb', 'A: RSS', ' MB', 0, 1),
    growth('heapAfterGcMb', 'A: heap after a full GC', ' MB', 0, 1),
    growth('fds', 'A: open file descriptors', '', FD_SLACK, 0, fdKind),
    growth('sockets', 'A: sockets among them', '', FD_SLACK, 0, fdKind),
    {
      kind: 'capacity',
      name: 'A: event-loop delay p99, whole run',
      value: input.loopTotal?.p99,
      baseline: `idle process: ${fmt(input.loopIdle?.p99, ' ms')}`,
      end: `${fmt(input.loopTotal?.p99, ' ms')} (p50 ${fmt(input.loopTotal?.p50, ' ms')}, max ${fmt(input.loopTotal?.max, ' ms', 0)})`,
      bound: `≤ ${LOOP_P99_BOUND_MS} ms + the idle process's p99`,
      ok: input.loopTotal !== undefined && input.loopTotal.p99 <= LOOP_P99_BOUND_MS + (input.loopIdle?.p99 ?? 0),
    },
    {
      kind: 'capacity',
      name: 'API calls',
      value: rate,
      baseline: '',
      end: `${input.calls.toLocaleString('en')} (${rate.toFixed(0)}/s)`,
      bound: `≥ ${Math.ceil(CALLS_PER_SECOND_TARGET * end).toLocaleString('en')} (${CALLS_PER_SECOND_TARGET.toFixed(0)}/s)`,
      ok: rate >= CALLS_PER_SECOND_TARGET,
    },
    {
      kind: 'correct',
      name: 'failed requests no injected fault explains',
      value: input.unexplained,
      baseline: '',
      end: String(input.unexplained),
      bound: '0',
      ok: input.unexplained === 0,
    },
    {
      kind: 'correct',
      name: "`docker ps -a` = every engine's containers",
      baseline: '',
      end: input.truthDetail,
      bound: 'equal',
      ok: input.truthful,
    },
    {
      kind: 'correct',
      name: 'A never exited',
      baseline: '',
      end: input.aCrashed ? 'exited' : 'ran throughout',
      bound: '',
      ok: !input.aCrashed,
    },
  ];
}
