/**
 * The watchdog's marks on the placement hot path: one store into a shared Int32Array before each
 * filter check, against the same loop without it (7 checks per node, 5,000 nodes). Best of 15
 * rounds of 200 passes each. Prints one line; test/bench/results/plugin-isolation.md quotes it.
 *
 *   node test/bench/plugin-isolation-marks.mjs
 */
const slots = new Int32Array(new SharedArrayBuffer(8));
const N = 5000,
  F = 7,
  R = 200;
const mk = () => Array.from({ length: F }, (_, f) => (node, row) => ((row + f) & 1023) !== 0);
const c1 = mk(),
  c2 = mk();
function plain() {
  let r = 0;
  for (let n = 0; n < N; n++)
    for (let f = 0; f < F; f++) {
      if (!c1[f](null, n)) {
        r++;
        break;
      }
    }
  return r;
}
function marked() {
  let r = 0;
  for (let n = 0; n < N; n++)
    for (let f = 0; f < F; f++) {
      slots[1] = f + 1;
      if (!c2[f](null, n)) {
        r++;
        break;
      }
    }
  return r;
}
const best = { plain: Infinity, marked: Infinity };
for (let round = 0; round < 15; round++)
  for (const [name, fn] of [
    ['plain', plain],
    ['marked', marked],
  ]) {
    const t = performance.now();
    for (let i = 0; i < R; i++) fn();
    const per = ((performance.now() - t) / R) * 1000;
    best[name] = Math.min(best[name], per);
  }
console.log(
  `best of 15 rounds, µs per pass (5000 nodes × 7 checks): without ${best.plain.toFixed(1)}, with a mark per check ${best.marked.toFixed(1)}, +${(((best.marked - best.plain) / (N * F)) * 1000).toFixed(2)} ns per check`,
);
