import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTempProject } from './support/temp-project.js';

const CORE = fileURLToPath(new URL('..', import.meta.url));
const COMPILED = join(CORE, 'dist/cli/bin.js');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(script: string, args: readonly string[], cwd?: string): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [script, ...args], { cwd, timeout: 30_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

describe('bin/swarm.js picks the bundle only while it is fresh', () => {
  // A copy of the real launcher in a folder shaped like core/, whose two CLIs say which one ran.
  const dir = mkdtempSync(join(tmpdir(), 'swarm-launcher-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'bin'));
  mkdirSync(join(dir, 'dist/bundle'), { recursive: true });
  mkdirSync(join(dir, 'dist/cli'), { recursive: true });
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
  copyFileSync(join(CORE, 'bin/swarm.js'), join(dir, 'bin/swarm.js'));
  writeFileSync(join(dir, 'dist/bundle/swarm.js'), "console.log('bundle', process.argv.slice(2).join(' '));\n");
  writeFileSync(join(dir, 'dist/cli/bin.js'), "console.log('compiled', process.argv.slice(2).join(' '));\n");
  writeFileSync(join(dir, 'dist/.tsbuildinfo'), '{}\n');
  const setTimes = (file: string, seconds: number): void => utimesSync(join(dir, file), seconds, seconds);

  it('runs the bundle when it is newer than the compiled files, with the arguments', async () => {
    setTimes('dist/.tsbuildinfo', 1_000);
    setTimes('dist/bundle/swarm.js', 2_000);
    expect((await run(join(dir, 'bin/swarm.js'), ['manage', '-H', 'x'])).stdout).toBe('bundle manage -H x\n');
  });

  it('runs the compiled CLI after a plain tsc -b made them newer than the bundle', async () => {
    setTimes('dist/bundle/swarm.js', 1_000);
    setTimes('dist/.tsbuildinfo', 2_000);
    expect((await run(join(dir, 'bin/swarm.js'), ['plugins'])).stdout).toBe('compiled plugins\n');
  });

  it('runs the compiled CLI when there is no bundle', async () => {
    rmSync(join(dir, 'dist/bundle/swarm.js'));
    expect((await run(join(dir, 'bin/swarm.js'), ['--version'])).stdout).toBe('compiled --version\n');
  });
});

describe('bin/swarm.js holds the optimizing compiler back until the process has work for it', () => {
  // A CLI that asks V8 (natives syntax) whether a function it marks for optimization gets TurboFan
  // code, then makes the heap larger than a small cluster's and asks again.
  const dir = mkdtempSync(join(tmpdir(), 'swarm-launcher-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'bin'));
  mkdirSync(join(dir, 'dist/bundle'), { recursive: true });
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
  copyFileSync(join(CORE, 'bin/swarm.js'), join(dir, 'bin/swarm.js'));
  writeFileSync(join(dir, 'dist/.tsbuildinfo'), '{}\n');
  utimesSync(join(dir, 'dist/.tsbuildinfo'), 1_000, 1_000);
  writeFileSync(
    join(dir, 'dist/bundle/swarm.js'),
    [
      'const optimized = () => {',
      "  const hot = new Function('x', 'return x + 1');",
      '  %PrepareFunctionForOptimization(hot);',
      '  hot(1);',
      '  %OptimizeFunctionOnNextCall(hot);',
      '  hot(2);',
      '  return (%GetOptimizationStatus(hot) & 64) !== 0;',
      '};',
      'const before = optimized();',
      'const kept = Array.from({ length: 90 }, (_, i) => new Array(100_000).fill(i + 0.5));',
      'setTimeout(() => console.log(before, optimized(), kept.length), 600);',
    ].join('\n'),
  );
  const launch = (flags: readonly string[]): Promise<string> =>
    new Promise((resolve, reject) => {
      execFile(
        process.execPath,
        ['--allow-natives-syntax', ...flags, join(dir, 'bin/swarm.js'), 'manage'],
        { timeout: 30_000 },
        (error, stdout) => (error ? reject(error) : resolve(stdout)),
      );
    });

  it('is off at start and comes on once the heap holds more than a small cluster', async () => {
    expect(await launch([])).toBe('false true 90\n');
  });

  it('is left to node when its command line names it', async () => {
    expect(await launch(['--turbofan'])).toBe('true true 90\n');
    expect(await launch(['--no-opt'])).toBe('false false 90\n');
  });
});

describe('the bundled CLI', () => {
  // Bundled afresh by the build's own script (core/dist/bundle may be older than a later tsc -b);
  // inside core/ so its externals (@swarm/*, tsyringe) resolve as they do for the real one.
  const outDir = mkdtempSync(join(CORE, 'dist/bundle-test-'));
  const bundle = join(outDir, 'swarm.js');
  const project = createTempProject();
  afterAll(() => {
    rmSync(outDir, { recursive: true, force: true });
    project.remove();
  });
  project.write('bad/.swarmrc.json', JSON.stringify({ cluster: { heartbeat: true }, scheduler: { filters: ['health', 'constrant'] } }));
  project.write('unknown/.swarmrc.json', JSON.stringify({ scheduler: { filters: ['health', 'constrant'] } }));

  beforeAll(async () => {
    const built = await run(join(CORE, 'scripts/bundle-cli.mjs'), ['--outfile', bundle]);
    expect(built.stderr).toBe('');
    expect(built.code).toBe(0);
  }, 120_000);

  const same: Array<[string, string[], string?]> = [
    ['--version (read from core/package.json next to the compiled files)', ['--version']],
    ['swarm plugins (built-ins found next to core, imported through the shared SDK)', ['plugins']],
    ['a config shape error, with its key path', ['manage', '127.0.0.1:1'], 'bad'],
    ['an unknown filter, with the available ones', ['manage', '127.0.0.1:1'], 'unknown'],
    ['a flag error', ['manage', '--heartbeat', '5', '127.0.0.1:1']],
  ];
  for (const [what, args, folder] of same) {
    it(`answers as the compiled CLI: ${what}`, async () => {
      const cwd = folder ? join(project.dir, folder) : project.dir;
      const [bundled, compiled] = await Promise.all([run(bundle, args, cwd), run(COMPILED, args, cwd)]);
      expect(bundled).toEqual(compiled);
      expect(bundled.stdout + bundled.stderr).not.toBe('');
    });
  }
});
