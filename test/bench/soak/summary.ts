/**
 * Min / median / max of each check over several soak runs (their .json files), as a markdown table:
 *   node test/bench/soak/dist/bench/soak/summary.js test/.artifacts/soak/soak-3min-*.json
 */
import { readFileSync } from 'node:fs';
import { median } from '../core-machine.js';
import type { Check } from './verdict.js';

interface Run {
  date: string;
  checks: Check[];
  loopIdle?: { p99: number };
}

/** The judged figure; runs written before checks carried `value` have it only in their text. */
function valueOf(check: Check | undefined): number | undefined {
  if (check === undefined) return undefined;
  if (check.value !== undefined) return check.value;
  const pattern = check.kind === 'leak' ? /\(([+-]?[\d.]+) %\)/ : check.name === 'API calls' ? /\((\d+)\/s\)/ : /^([\d.]+)/;
  const found = pattern.exec(check.end)?.[1];
  return found === undefined ? undefined : Number(found);
}

const runs = process.argv.slice(2).map((file) => JSON.parse(readFileSync(file, 'utf8')) as Run);
const units: Record<string, string> = { leak: ' %', capacity: '', correct: '' };
const lines = [
  `${runs.length} runs: ${runs.map((run) => run.date).join(', ')}`,
  '',
  '| check | min | median | max | held in |',
  '| --- | ---: | ---: | ---: | ---: |',
];
for (const check of runs[0]?.checks ?? []) {
  const values = runs.map((run) => valueOf(run.checks.find((c) => c.name === check.name))).filter((v): v is number => v !== undefined);
  const held = runs.filter((run) => run.checks.find((c) => c.name === check.name)?.ok).length;
  const show = (v: number | undefined) => (v === undefined ? 'n/a' : `${v.toFixed(1)}${units[check.kind] ?? ''}`);
  const [low, mid, high] = values.length ? [Math.min(...values), median(values), Math.max(...values)] : [];
  lines.push(`| ${check.name} | ${show(low)} | ${show(mid)} | ${show(high)} | ${held} / ${runs.length} |`);
}
const idle = runs.map((run) => run.loopIdle?.p99).filter((v): v is number => v !== undefined);
if (idle.length) lines.push('', `Idle process's event-loop p99 in the same runs: ${idle.map((v) => `${v.toFixed(0)} ms`).join(', ')}`);
console.log(lines.join('\n'));
