/**
 * Plugin resolution + semver checks for 50 third-party plugins installed in a project's
 * node_modules: cold (a fresh process: resolve, import, check) and warm (resolve + check again in
 * the same process). Median of 10 cold processes. Writes test/bench/results/core-plugin-resolution.md.
 *
 *   npx tsc -b plugin-sdk core && npx tsc -p test/bench && node test/bench/dist/core-plugin-resolution.js
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkApiVersion, loadPlugins, PackageFinder, resolvePlugin } from '@swarm/core';
import { machineDescription, median, ms } from './core-machine.js';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const COUNT = 50;
const RUNS = Number(process.env['BENCH_RUNS'] ?? 10);
const specs = Array.from({ length: COUNT }, (_, index) => `bench${index}`);

/** Child mode: one cold measurement in a fresh process, printed as JSON. */
async function measureOnce(dir: string): Promise<void> {
  const started = performance.now();
  const plugins = await loadPlugins(specs, dir);
  const cold = performance.now() - started;
  const warmRuns: number[] = [];
  for (let round = 0; round < 20; round++) {
    const again = performance.now();
    const finder = new PackageFinder();
    for (const plugin of plugins) {
      resolvePlugin(plugin.spec, dir, finder);
      checkApiVersion(plugin.manifest);
    }
    warmRuns.push(performance.now() - again);
  }
  process.stdout.write(JSON.stringify({ cold, warm: median(warmRuns), loaded: plugins.length }));
}

function createProject(): string {
  const dir = mkdtempSync(join(tmpdir(), 'swarm-bench-plugins-'));
  mkdirSync(join(dir, 'node_modules', '@swarm'), { recursive: true });
  symlinkSync(join(REPO, 'plugin-sdk'), join(dir, 'node_modules', '@swarm', 'plugin-sdk'));
  for (const spec of specs) {
    const packageDir = join(dir, 'node_modules', `swarm-plugin-${spec}`);
    mkdirSync(packageDir);
    writeFileSync(
      join(packageDir, 'package.json'),
      JSON.stringify({
        name: `swarm-plugin-${spec}`,
        version: '1.0.0',
        type: 'module',
        main: 'index.js',
        swarm: { plugin: true, kinds: ['filter'] },
      }),
    );
    writeFileSync(
      join(packageDir, 'index.js'),
      `import { definePlugin } from '@swarm/plugin-sdk';\nexport default definePlugin({ name: 'swarm-plugin-${spec}', version: '1.0.0', apiVersion: '^1.0.0', register(ctx) { ctx.filter('${spec}', { useFactory: () => ({ name: '${spec}', prepare: () => undefined }) }); } });\n`,
    );
  }
  return dir;
}

if (process.argv[2] === '--child') {
  await measureOnce(process.argv[3]!);
} else {
  const dir = createProject();
  const self = fileURLToPath(import.meta.url);
  const results: Array<{ cold: number; warm: number; loaded: number }> = [];
  execFileSync(process.execPath, [self, '--child', dir]); // warm the file system cache
  for (let run = 0; run < RUNS; run++)
    results.push(JSON.parse(execFileSync(process.execPath, [self, '--child', dir], { encoding: 'utf8' })));
  rmSync(dir, { recursive: true, force: true });
  if (results.some((result) => result.loaded !== COUNT)) throw new Error('not every plugin loaded');
  const cold = results.map((result) => result.cold);
  const warm = results.map((result) => result.warm);
  const report = `# Plugin resolution + semver checks, ${COUNT} plugins (core)

Command: \`npx tsc -b plugin-sdk core && npx tsc -p test/bench && node test/bench/dist/core-plugin-resolution.js\`

Machine: ${machineDescription()}

Setup: a temporary project with ${COUNT} packages \`swarm-plugin-bench0..${COUNT - 1}\` in node_modules (plain ESM, \`definePlugin\` from the real SDK), named by short name (\`bench7\` → tries the 5 built-in package names, then \`swarm-plugin-bench7\`). Median of ${RUNS} fresh processes.

| measure | median | min | max |
| --- | --- | --- | --- |
| cold: resolve + import + manifest check + semver, all ${COUNT} (\`loadPlugins\`) | ${ms(median(cold))} | ${ms(Math.min(...cold))} | ${ms(Math.max(...cold))} |
| warm: resolve + semver check again, all ${COUNT}, modules already imported (median of 20 rounds per process) | ${ms(median(warm))} | ${ms(Math.min(...warm))} | ${ms(Math.max(...warm))} |

Target: under 50 ms.
`;
  writeFileSync(join(REPO, 'test', 'bench', 'results', 'core-plugin-resolution.md'), report);
  process.stdout.write(report);
}
