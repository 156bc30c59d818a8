import { defineConfig } from 'vitest/config';
import LongestFirstSequencer from './test/runner/longest-first.js';

// Tests import the packages by name, so they run against the built `dist/` that a user gets
// (`npm test` builds first). Up to three files run at once: every file that starts real engines,
// ZooKeeper, etcd or a manager owns its engine indexes and ports, so files never share them.
export default defineConfig({
  test: {
    // `.vitest-results.json` feeds the `N passed, M failed` line of .ci/run.
    reporters: ['default', ['json', { outputFile: '.vitest-results.json' }]],
    maxWorkers: 3,
    // the longest files first, so that short ones fill the end (test/runner/longest-first.ts)
    sequence: { sequencer: LongestFirstSequencer },
    projects: [
      {
        test: {
          name: 'unit',
          include: ['plugin-sdk/test/**/*.test.ts', 'core/test/**/*.test.ts', 'plugins/*/test/**/*.test.ts', 'test/unit/**/*.test.ts'],
          // some unit files start one real engine or store: slow on a loaded 2-core machine
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts', 'test/reliability/**/*.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
    ],
  },
});
