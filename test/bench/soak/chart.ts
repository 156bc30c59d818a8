const WIDTH = 60;
const HEIGHT = 6;

/**
 * An ASCII line chart of one series over the run (one column per time step, averaged down to at
 * most 60 columns), its y axis from the smallest to the largest value, so that "flat" shows as a
 * flat line and a leak as a slope.
 */
export function asciiChart(title: string, points: ReadonlyArray<{ t: number; v: number }>, unit: string): string[] {
  if (points.length === 0) return [`${title}: no samples`];
  const perColumn = Math.ceil(points.length / WIDTH);
  const columns: number[] = [];
  for (let i = 0; i < points.length; i += perColumn) {
    const slice = points.slice(i, i + perColumn);
    columns.push(slice.reduce((sum, p) => sum + p.v, 0) / slice.length);
  }
  const low = Math.min(...columns);
  const high = Math.max(...columns);
  const span = high - low || 1;
  const rows: string[] = [];
  for (let row = HEIGHT - 1; row >= 0; row--) {
    const label = (low + (span * row) / (HEIGHT - 1)).toFixed(1).padStart(8);
    const cells = columns.map((value) => (Math.round(((value - low) / span) * (HEIGHT - 1)) === row ? '*' : ' ')).join('');
    rows.push(`${label} |${cells}`);
  }
  const lastT = points.at(-1)!.t;
  rows.push(`${''.padStart(8)} +${'-'.repeat(columns.length)}`);
  rows.push(`${''.padStart(10)}0 s${' '.repeat(Math.max(1, columns.length - 3 - String(lastT).length - 2))}${lastT} s`);
  return [`${title} (${unit})`, ...rows];
}
