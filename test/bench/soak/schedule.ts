/**
 * When the soak's failovers happen, in ms after the load starts. The growth checks compare two
 * windows (verdict.ts): the baseline minute's and the run's end. Both must be quiet (no failover
 * settling in them) and find A in the same role, since a primary holds more sockets than a
 * replica; so an even number of failovers falls between them (A: primary → replica → primary),
 * and two more before a baseline at minute 2 or later, so that A's baseline is taken, as its end is,
 * in a term as primary that followed a takeover (A holds about 40 MB more from its first takeover on
 * than in the term it started in: the hour's run, results/soak.md); in the hour all about 5 minutes
 * apart.
 */
export function failoverTimes(minutes: number, baseMinute: number, windowSeconds: number): number[] {
  const second = 1000;
  const baseStart = baseMinute * 60 * second;
  const baseEnd = baseStart + windowSeconds * second;
  // a SIGKILL failover settles within the TTL (20 s) plus B's restart: give it a minute, or the window's length
  const settle = Math.min(60, windowSeconds) * second;
  const last = minutes * 60 * second - windowSeconds * second - settle;
  const first = baseEnd + 5 * second;
  const pairs = Math.max(1, Math.round((last - first) / (10 * 60 * second)));
  const between = Array.from({ length: 2 * pairs }, (_, i) => first + ((last - first) * i) / (2 * pairs - 1));
  const before = baseMinute >= 2 ? [baseStart / 3, (2 * baseStart) / 3] : [];
  return [...before, ...between].map(Math.round);
}
