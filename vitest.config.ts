import { defineConfig } from 'vitest/config';

// Tests import the packages by name, so they run against the built `dist/` that a user gets
// (`npm test` builds first). Unit tests run in parallel; end-to-end tests start real engines,
// ZooKeeper and etcd, so they run one file at a time.
export default defineConfig({
  test: {
    // `.vitest-results.json` feeds the `N passed, M failed` line of .ci/run.
    reporters: ['default', ['json', { outputFile: '.vitest-results.json' }]],
    projects: [
      {
        test: {
          name: 'unit',
          include: ['plugin-sdk/test/**/*.test.ts', 'core/test/**/*.test.ts', 'plugins/*/test/**/*.test.ts', 'test/unit/**/*.test.ts'],
          testTimeout: 20_000,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          fileParallelism: false,
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
    ],
  },
});
