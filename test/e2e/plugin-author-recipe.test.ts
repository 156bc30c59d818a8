import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { PLUGIN_API_VERSION } from '@swarm/plugin-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestbed, type Testbed } from '../harness/engines.js';
import { healthyNodeCount } from '../harness/manager.js';

// What a plugin author had to guess (issue 35, items 10, 12-15), tried as they try it: from empty
// folders, with the real npm and npx, the README's own commands, and the packed tarballs.
// Engine 248, ports 26240-26241 belong to this file.
const run = promisify(execFile);
const REPO = fileURLToPath(new URL('../..', import.meta.url));
const README = readFileSync(join(REPO, 'README.md'), 'utf8');
const PORT = 26240;
const NOBODY_PORT = 26241;
const work = mkdtempSync(join(tmpdir(), 'swarm-author-'));
const packages = join(work, 'packages');
const project = join(work, 'my-cluster');
let engines: Testbed;
let manager: ChildProcess | undefined;
let managerOutput = '';
let recipeOutput = '';

/** A user's shell: no DOCKER_HOST, no NODE_PATH; npm prefers its cache (the test must not depend on the network for what it has). */
const userEnv = (): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_PATH: '',
    npm_config_prefer_offline: 'true',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
  };
  delete env['DOCKER_HOST'];
  return env;
};

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

/** Run a command and keep its exit code instead of throwing on a non-zero one. */
async function attempt(file: string, args: string[], cwd: string): Promise<Result> {
  try {
    const { stdout, stderr } = await run(file, args, { cwd, env: userEnv(), maxBuffer: 1 << 24, timeout: 240_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof failed.code === 'number' ? failed.code : -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

const swarm = (cwd: string, ...args: string[]) => attempt('npx', ['swarm', ...args], cwd);
const docker = (...args: string[]) => attempt('docker', ['-H', `tcp://127.0.0.1:${PORT}`, ...args], work);

/** The README's commands with this machine's paths: `~` is the work folder, `/path/to/swarm/packages` the tarballs. */
const localize = (line: string): string => line.replaceAll('/path/to/swarm/packages', packages).replaceAll('~/', `${work}/`);

/** The shell block of the README's "Install in your own folder". */
function installRecipe(): string[] {
  const section = README.slice(README.indexOf('## Install in your own folder'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)![1]!;
  // joins the heredoc into the line that opens it, so that each entry is one command
  const commands: string[] = [];
  let heredoc: string[] | undefined;
  for (const line of block.split('\n')) {
    if (heredoc) {
      heredoc.push(line);
      if (line === 'JS') {
        commands.push(heredoc.join('\n'));
        heredoc = undefined;
      }
    } else if (line.includes("<<'JS'")) heredoc = [line];
    else if (line.trim() !== '') commands.push(line);
  }
  return commands;
}

/** A plugin package written by hand: package.json and index.js in `dir`. */
function writePlugin(dir: string, name: string, version: string, apiVersion: string, source: string): void {
  mkdirSync(dir, { recursive: true });
  const sdkMajor = (JSON.parse(readFileSync(join(REPO, 'plugin-sdk', 'package.json'), 'utf8')) as { version: string }).version.split(
    '.',
  )[0];
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({
      name,
      version,
      type: 'module',
      main: './index.js',
      swarm: { plugin: true, kinds: ['filter'] },
      peerDependencies: { '@swarm/plugin-sdk': `^${sdkMajor}.0.0` },
    }),
  );
  writeFileSync(join(dir, 'index.js'), source.replace('API_RANGE', apiVersion));
}

const GPU_FILTER = `import { definePlugin, fail, PASS } from '@swarm/plugin-sdk';

class GpuFilter {
  name = 'gpu';
  prepare(request) {
    if ((request.config.Env ?? []).includes('gpu=boom')) throw new Error('the gpu filter fell over');
    return { conditions: ['gpu=on'], check: (node) => (node.labels().gpu === 'on' ? PASS : fail('no gpu')) };
  }
}

export default definePlugin({
  name: 'swarm-plugin-gpu',
  version: '0.1.0',
  apiVersion: 'API_RANGE',
  register(ctx) {
    ctx.filter('gpu', { useFactory: () => new GpuFilter() });
  },
});
`;

const FUTURE_FILTER = `import { definePlugin, PASS } from '@swarm/plugin-sdk';

export default definePlugin({
  name: 'swarm-plugin-future',
  version: '3.0.0',
  apiVersion: 'API_RANGE',
  register(ctx) {
    ctx.filter('future', { useValue: { name: 'future', prepare: () => ({ conditions: [], check: () => PASS }) } });
  },
});
`;

beforeAll(async () => {
  const testbed = startTestbed({ first: 248, count: 1, labels: ['gpu=on'] });
  mkdirSync(packages);
  const workspaces = ['plugin-sdk', 'core', ...readdirSync(join(REPO, 'plugins')).map((name) => `plugins/${name}`)];
  await run('npm', ['pack', '--silent', '--pack-destination', packages, ...workspaces.flatMap((workspace) => ['--workspace', workspace])], {
    cwd: REPO,
    maxBuffer: 1 << 24,
  });
  const [major] = PLUGIN_API_VERSION.split('.');
  // a third-party plugin's tarball, as its author ships it (npm pack)
  writePlugin(join(work, 'gpu-src'), 'swarm-plugin-gpu', '0.1.0', `^${major}.0.0`, GPU_FILTER);
  await run('npm', ['pack', '--silent', '--pack-destination', work], { cwd: join(work, 'gpu-src') });
  // the README's recipe, command by command, as written; the servers (manage, sandbox) are started by the tests
  for (const command of installRecipe()) {
    if (command.startsWith('npm run pack') || /npx swarm (manage|sandbox)/.test(command)) continue;
    const result = await attempt('bash', ['-euo', 'pipefail', '-c', localize(command)], work);
    recipeOutput += `$ ${command}\n${result.stdout}${result.stderr}`;
    if (result.code !== 0) throw new Error(`the README's recipe failed at: ${command}\n${recipeOutput}`);
  }
  // a plugin for a plugin API this swarm does not provide, listed by path (it imports the SDK from the folder's node_modules)
  writePlugin(join(project, 'vendor', 'swarm-plugin-future'), 'swarm-plugin-future', '3.0.0', '^99.0.0', FUTURE_FILTER);
  engines = await testbed;
}, 600_000);

afterAll(async () => {
  // npx runs the manager as its child: end the whole group, or the manager outlives the run on PORT
  if (manager?.pid !== undefined) {
    try {
      process.kill(-manager.pid, 'SIGTERM');
    } catch {
      // already gone
    }
  }
  await engines?.stop();
  rmSync(work, { recursive: true, force: true });
});

/** A config of its own in a sub-folder of the install (plugins still resolve from its node_modules). */
function configIn(folder: string, config: string): string {
  const dir = join(project, folder);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'swarm.config.js'), config);
  return dir;
}

describe("the README's install recipe, from an empty folder with today's npm", () => {
  it('works as written: npm init -y says commonjs, and the export default config is read', () => {
    expect((JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as { type?: string }).type).toBe('commonjs');
    expect(recipeOutput).toMatch(/^swarm-plugin-gpu\s+0\.1\.0\s+filter\s+filter gpu\s/m);
  });

  it('names the config FILE and the fix when it cannot be read', async () => {
    const dir = configIn('broken', "export default { plugins: ['gpu' };\n");
    const result = await swarm(dir, 'plugins');
    expect(result.code).toBe(1);
    expect(result.stderr.split('\n')).toHaveLength(2);
    expect(result.stderr).toMatch(
      new RegExp(
        `^cannot read config ${join(dir, 'swarm.config.js')}: .+; fix the JavaScript in swarm.config.js: it must export the config object`,
      ),
    );
  });
});

describe('did you mean', () => {
  it("suggests the installed swarm-plugin-gpu for 'gup', before an npm install of a package nobody published", async () => {
    const dir = configIn('typo', "export default { plugins: ['gup'] };\n");
    const hint =
      "did you mean 'gpu'? (swarm-plugin-gpu is installed here: list it in plugins as 'gpu'); otherwise install it with: npm install swarm-plugin-gup";
    const listed = await swarm(dir, 'plugins');
    expect(listed.code).toBe(1);
    expect(listed.stdout).toContain(hint);
    const managed = await swarm(dir, 'manage', `nodes://127.0.0.1:${NOBODY_PORT}`, '-H', `tcp://127.0.0.1:${NOBODY_PORT}`);
    expect(managed.code).toBe(1);
    expect(managed.stderr.trim().split('\n')).toHaveLength(1);
    expect(managed.stderr).toContain(hint);
  });

  it('gives an incompatible plugin both ways out, naming its package', async () => {
    const dir = configIn('future', "export default { plugins: ['../vendor/swarm-plugin-future'] };\n");
    const result = await swarm(dir, 'plugins', '--json');
    expect(result.code).toBe(1);
    const rows = JSON.parse(result.stdout) as Array<{ name: string; package: string; compatible: boolean; error?: string }>;
    const row = rows.find((candidate) => candidate.name === 'swarm-plugin-future');
    expect(row).toMatchObject({ package: 'swarm-plugin-future', compatible: false });
    expect(row?.error).toBe(
      `plugin "swarm-plugin-future@3.0.0" requires plugin API ^99.0.0, this swarm provides ${PLUGIN_API_VERSION}; either upgrade swarm ` +
        `(@swarm/core) to a version that provides plugin API ^99.0.0, or install a version of swarm-plugin-future built for ` +
        `plugin API ${PLUGIN_API_VERSION} (one whose apiVersion range includes ${PLUGIN_API_VERSION})`,
    );
  });
});

describe('exit codes and machine output tell the truth', () => {
  it('swarm plugins exits 1 for an unknown filter, as manage refuses it, with the error in --json', async () => {
    const dir = configIn('unknown', "export default { plugins: ['gpu'], scheduler: { filters: ['health', 'gpux'] } };\n");
    const result = await swarm(dir, 'plugins', '--json');
    expect(result.code).toBe(1);
    const rows = JSON.parse(result.stdout) as Array<{ name: string; package: string; error?: string; resolved: string }>;
    expect(rows.filter((row) => row.error !== undefined)).toEqual([
      expect.objectContaining({
        name: 'config',
        resolved: join(dir, 'swarm.config.js'),
        error: expect.stringMatching(
          /^scheduler\.filters\[1\]: unknown filter "gpux"; available: .*\bgpu\b.*; did you mean "gpu"\?$/,
        ) as unknown,
      }),
    ]);
    const managed = await swarm(dir, 'manage', `nodes://127.0.0.1:${NOBODY_PORT}`, '-H', `tcp://127.0.0.1:${NOBODY_PORT}`);
    expect(managed.code).toBe(1);
    expect(managed.stderr).toContain('scheduler.filters[1]: unknown filter "gpux"');
    expect((await swarm(project, 'plugins')).code).toBe(0);
  });

  it('swarm schedule --explain: 0 placed, 1 refused, 2 error, as its --help says', async () => {
    manager = spawn('npx', ['swarm', 'manage', '-H', `tcp://127.0.0.1:${PORT}`, engines.engines[0]!.addr], {
      cwd: project,
      env: userEnv(),
      detached: true,
    });
    manager.stdout!.on('data', (chunk: Buffer) => (managerOutput += chunk.toString()));
    manager.stderr!.on('data', (chunk: Buffer) => (managerOutput += chunk.toString()));
    for (let waited = 0; waited < 60_000; waited += 250) {
      const info = await docker('info', '--format', '{{json .SystemStatus}}');
      if (info.code === 0 && healthyNodeCount({ SystemStatus: JSON.parse(info.stdout) as Array<[string, string]> }) === 1) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const explain = (...args: string[]) => swarm(project, 'schedule', '--explain', '-H', `tcp://127.0.0.1:${PORT}`, ...args);
    const placed = await explain('busybox:local');
    expect(placed.code, `${placed.stdout}${placed.stderr}${managerOutput}`).toBe(0);
    const refused = await explain('-e', 'constraint:zone==nowhere', 'busybox:local');
    expect(refused.code, refused.stdout).toBe(1);
    expect(refused.stdout).toContain('0/1 nodes are available');
    const failed = await explain('-e', 'gpu=boom', 'busybox:local');
    expect(failed.code, failed.stdout).toBe(2);
    expect(failed.stdout).toContain('filter "gpu" (swarm-plugin-gpu@0.1.0) failed in prepare(): the gpu filter fell over');
    const unreachable = await swarm(project, 'schedule', '--explain', '-H', `tcp://127.0.0.1:${NOBODY_PORT}`, 'busybox:local');
    expect(unreachable.code).toBe(2);
    expect(unreachable.stderr.trim().split('\n')).toHaveLength(1);
    const help = await swarm(project, 'schedule', '--help');
    expect(help.stdout).toContain(
      'Exit status: 0 placed, 1 refused (by authentication, authorization, admission, or no node can take it), 2 error',
    );
    expect(README).toContain('# exit 0 placed, 1 refused, 2 error');
  });
});

describe('/_swarm/metrics', () => {
  it('counts a plugin failure, and the README documents every metric it serves', async () => {
    const refused = await docker('run', '-d', '-e', 'gpu=boom', 'busybox:local', 'true');
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('filter "gpu" (swarm-plugin-gpu@0.1.0) failed');
    const text = await (await fetch(`http://127.0.0.1:${PORT}/_swarm/metrics`)).text();
    // one count per request the plugin failed: each create the docker CLI sent and got the 500 for
    const failures = /^swarm_plugin_failures_total\{kind="filter",name="gpu",plugin="swarm-plugin-gpu@0\.1\.0"\} (\d+)$/m.exec(text)?.[1];
    const failedCreates = /^swarm_api_requests_total\{method="POST",route="\/containers\/create",status="500"\} (\d+)$/m.exec(text)?.[1];
    expect(Number(failures), text).toBeGreaterThanOrEqual(1);
    expect(failures).toBe(failedCreates);
    const served = [...text.matchAll(/^# HELP (\S+)/gm)].map((match) => match[1]!);
    expect(served.length).toBeGreaterThanOrEqual(6);
    const section = README.slice(README.indexOf('## Metrics'), README.indexOf('\n## ', README.indexOf('## Metrics') + 1));
    for (const name of served) expect(section, name).toContain(`| \`${name}\` |`);
  });
});

describe('swarm plugin init from an empty folder, outside any install', () => {
  it("runs through the README's npx line, and the package it writes depends on the SDK by a range", async () => {
    const authoring = join(work, 'authoring');
    mkdirSync(authoring);
    const line = README.split('\n').find((candidate) => candidate.startsWith("npx --yes $(printf -- '-p %s '"));
    expect(line).toBeDefined();
    // as written, in a shell with no terminal (stdin closed), as a script or CI runs it
    const init = await attempt('bash', ['-c', `${localize(line!).split('#')[0]!} </dev/null`], authoring);
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toContain('Created filter "gpu"');
    const dir = join(authoring, 'swarm-plugin-gpu');
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
      peerDependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    expect(manifest.devDependencies['@swarm/plugin-sdk']).toMatch(/^\^\d+\.\d+\.\d+$/);
    expect(manifest.peerDependencies['@swarm/plugin-sdk']).toBe(manifest.devDependencies['@swarm/plugin-sdk']);
    // the steps it printed, as printed
    const install = /^ {2}(npm install .*&& npm test)$/m.exec(init.stdout)?.[1];
    // the SDK tarball npx installed from, never npx's cache, which npm may empty
    expect(install, init.stdout).toMatch(/^npm install --no-save \/\S+\/swarm-plugin-sdk-\S+\.tgz && npm test$/);
    expect(install).not.toContain('_npx');
    expect(readFileSync(join(dir, 'README.md'), 'utf8')).not.toContain('_npx');
    expect(readFileSync(join(dir, 'src', 'index.ts'), 'utf8')).toContain("apiVersion: '^2.0.0'");
    const tested = await attempt('bash', ['-c', install!], dir);
    expect(tested.code, `${tested.stdout}${tested.stderr}`).toBe(0);
    expect(readFileSync(join(dir, 'package.json'), 'utf8')).not.toContain('file:');
  }, 300_000);
});
