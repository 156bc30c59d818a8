import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Three files run at once on two cores, and the suite's e2e files take from one second to four
 * minutes each. Vitest starts a fresh clone's files project by project and, within one, largest
 * first, so the slow unit files (eslint over the repository, the ZooKeeper and etcd suites) started
 * last and ran alone at the end. Starting the longest files first (longest processing time first)
 * leaves short ones to fill the gaps. How long each file takes comes from this machine's last run
 * when vitest kept one, or else from `durations.json` (a CI run's, written by
 * `node test/runner/record-durations.mjs`); a file known to neither goes first, as it may be long.
 */
const RECORDED = new URL('./durations.json', import.meta.url);

function recordedDurations(): Record<string, number> {
  try {
    return JSON.parse(readFileSync(RECORDED, 'utf8')) as Record<string, number>;
  } catch {
    return {};
  }
}

export default class LongestFirstSequencer extends BaseSequencer {
  private readonly recorded = recordedDurations();

  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const duration = (file: TestSpecification): number => {
      const key = `${file.project.name}:${relative(root, file.moduleId)}`;
      return this.ctx.cache.getFileTestResults(key)?.duration ?? this.recorded[key] ?? Number.POSITIVE_INFINITY;
    };
    const known = new Map(files.map((file) => [file, duration(file)]));
    return [...files].sort((a, b) => known.get(b)! - known.get(a)!);
  }
}
