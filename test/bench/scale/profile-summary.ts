import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
}

export interface HotSpot {
  where: string;
  selfMs: number;
  share: number;
}

const shortUrl = (url: string): string => url.replace(/^file:\/\//, '').replace(/^.*\/(node_modules|core|plugins|plugin-sdk)\//, '$1/');

/** The functions with the most self time in a `node --cpu-prof` profile. */
export function hotSpots(profile: CpuProfile, top = 15): HotSpot[] {
  const sampleMs = (profile.endTime - profile.startTime) / 1000 / Math.max(1, profile.samples.length);
  const byPlace = new Map<string, number>();
  let total = 0;
  for (const node of profile.nodes) {
    const hits = node.hitCount ?? 0;
    if (hits === 0) continue;
    const frame = node.callFrame;
    const where = `${frame.functionName || '(anonymous)'} ${frame.url ? `${shortUrl(frame.url)}:${frame.lineNumber + 1}` : ''}`.trim();
    byPlace.set(where, (byPlace.get(where) ?? 0) + hits);
    total += hits;
  }
  return [...byPlace.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([where, hits]) => ({ where, selfMs: hits * sampleMs, share: hits / Math.max(1, total) }));
}

const packageOf = (node: ProfileNode): string => {
  const url = node.callFrame.url;
  if (url === '') return node.callFrame.functionName.startsWith('(') ? node.callFrame.functionName : '(native)';
  if (url.startsWith('node:')) return 'node internals';
  const inWorkspace = /\/(plugins\/[^/]+|core|plugin-sdk)\//.exec(url);
  if (inWorkspace) return inWorkspace[1] ?? url;
  return /node_modules\/((@[^/]+\/)?[^/]+)/.exec(url)?.[1] ?? url;
};

/** Self time per package (driver, core, node internals, GC, idle). */
export function selfTimeByPackage(profile: CpuProfile): string {
  const byPackage = new Map<string, number>();
  let total = 0;
  for (const node of profile.nodes) {
    const hits = node.hitCount ?? 0;
    byPackage.set(packageOf(node), (byPackage.get(packageOf(node)) ?? 0) + hits);
    total += hits;
  }
  const rows = [...byPackage.entries()]
    .filter(([, hits]) => hits > 0)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 10)
    .map(([name, hits]) => `| ${((hits / Math.max(1, total)) * 100).toFixed(1)}% | ${name} |`);
  return ['| self % | where |', '|---|---|', ...rows].join('\n');
}

/** Reads the (single) profile a process wrote into `dir`. */
export function readProfile(dir: string): CpuProfile | undefined {
  const file = readdirSync(dir).find((name) => name.endsWith('.cpuprofile'));
  return file === undefined ? undefined : (JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile);
}

export function hotSpotTable(spots: readonly HotSpot[]): string {
  const rows = spots.map(
    (spot) => `| ${(spot.share * 100).toFixed(1)}% | ${Math.round(spot.selfMs)} | \`${spot.where.replaceAll('|', '\\|')}\` |`,
  );
  return ['| self % | self ms | function |', '|---|---|---|', ...rows].join('\n');
}

if (process.argv[1]?.endsWith('profile-summary.js')) {
  const profile = readProfile(process.argv[2] ?? '.');
  console.log(profile === undefined ? 'no .cpuprofile found' : hotSpotTable(hotSpots(profile, Number(process.argv[3] ?? 25))));
}
