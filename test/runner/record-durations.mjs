// Writes test/runner/durations.json, what the longest-first sequencer orders a fresh clone's run
// by, from the durations vitest kept of this checkout's last full run (its results cache).
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const cache = fileURLToPath(new URL('../../node_modules/.vite/vitest/', import.meta.url));
const [folder] = readdirSync(cache);
if (!folder) throw new Error(`no vitest results under ${cache}: run the suite first (npm test)`);
const { results } = JSON.parse(readFileSync(`${cache}${folder}/results.json`, 'utf8'));
const durations = Object.fromEntries(
  results
    .filter(([, result]) => typeof result.duration === 'number')
    .map(([key, result]) => [key, Math.round(result.duration)])
    .sort(([a], [b]) => (a < b ? -1 : 1)),
);
writeFileSync(fileURLToPath(new URL('./durations.json', import.meta.url)), `${JSON.stringify(durations, null, 2)}\n`);
console.log(`${Object.keys(durations).length} files' durations written to test/runner/durations.json`);
