import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestbed, type Testbed } from '../harness/engines.js';
import { healthyNodeCount } from '../harness/manager.js';

// A user's own folder outside the repository: the packed tarballs (what `npm run pack` writes) and
// a third-party plugin installed from disk, `swarm` run from that folder's node_modules only.
// Engines 233-234, ports 26187 and 26190.
const run = promisify(execFile);
const REPO = fileURLToPath(new URL('../..', import.meta.url));
const PORT = 26187;
const SIM_PORT = 26190;
const work = mkdtempSync(join(tmpdir(), 'swarm-install-'));
const project = join(work, 'my-cluster');
let maintenance: Testbed;
let open: Testbed;
let manager: ChildProcess | undefined;
let output = '';
let scaffolded = '';
const authorTests: Record<string, string> = {};

const userEnv = (): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_PATH: '' };
  delete env['DOCKER_HOST'];
  return env;
};
const swarm = (...args: string[]) => run(join(project, 'node_modules', '.bin', 'swarm'), args, { cwd: project, env: userEnv() });
const docker = async (...args: string[]) => (await run('docker', ['-H', `tcp://127.0.0.1:${PORT}`, ...args])).stdout.trim();

beforeAll(async () => {
  const engines = Promise.all([
    startTestbed({ first: 233, count: 1, labels: ['maintenance=true'] }),
    startTestbed({ first: 234, count: 1, labels: ['gpu=on'] }),
  ]);
  const packages = join(work, 'packages');
  mkdirSync(packages);
  const workspaces = ['plugin-sdk', 'core', ...readdirSync(join(REPO, 'plugins')).map((name) => `plugins/${name}`)];
  await run('npm', ['pack', '--silent', '--pack-destination', packages, ...workspaces.flatMap((workspace) => ['--workspace', workspace])], {
    cwd: REPO,
    maxBuffer: 1 << 24,
  });
  await run('npm', ['pack', '--silent', '--pack-destination', packages], { cwd: join(REPO, 'test', 'fixtures', 'third-party-plugin') });
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'my-cluster', private: true, type: 'module' }));
  const tarballs = readdirSync(packages).map((file) => join(packages, file));
  await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', ...tarballs], { cwd: project, maxBuffer: 1 << 24 });
  // a plugin author's first steps, for each kind: scaffold, install, test (the SDK's conformance checks), pack
  const author = async (name: string, kind: string): Promise<string> => {
    const dir = join(work, `swarm-plugin-${name}`);
    const printed = (
      await run(join(project, 'node_modules', '.bin', 'swarm'), ['plugin', 'init', name, '--kind', kind, '--dir', dir], { cwd: work })
    ).stdout;
    scaffolded += printed;
    // the first install it printed: the SDK this swarm runs with, not saved (no registry has it here)
    const install = /^ {2}npm install (--no-save \S+) && npm test$/m.exec(printed)![1]!.split(' ');
    await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', ...install], { cwd: dir, maxBuffer: 1 << 24 });
    authorTests[kind] = (await run('npm', ['test'], { cwd: dir, maxBuffer: 1 << 24 })).stdout;
    return join(dir, (await run('npm', ['pack', '--silent'], { cwd: dir })).stdout.trim().split('\n').pop()!);
  };
  const packs = [
    await author('gpu', 'filter'),
    await author('sim', 'driver'),
    await author('pool', 'discovery'),
    await author('readonly', 'authz'),
    await author('limits', 'admission'),
  ];
  await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', ...packs], { cwd: project, maxBuffer: 1 << 24 });
  writeFileSync(
    join(project, 'swarm.config.js'),
    `export default {\n  api: { hosts: ['tcp://127.0.0.1:${PORT}'] },\n  plugins: ['maintenance', 'gpu', 'sim', 'pool', 'readonly', 'limits'],\n  scheduler: { filters: ['health', 'port', 'constraint', 'maintenance', 'gpu'], strategy: 'spread' },\n};\n`,
  );
  [maintenance, open] = await engines;
}, 600_000);

afterAll(async () => {
  manager?.kill('SIGTERM');
  await maintenance?.stop();
  await open?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe('swarm installed from its tarballs in a folder of its own', () => {
  it('lists the built-ins and the third-party plugin, all resolved from that folder', async () => {
    const { stdout } = await swarm('plugins', '--json');
    const rows = JSON.parse(stdout) as Array<{ name: string; resolved: string; compatible: boolean; provides: string[] }>;
    const third = rows.find((row) => row.name === 'swarm-plugin-maintenance');
    expect(third?.compatible).toBe(true);
    expect(third?.provides).toEqual(['filter maintenance']);
    expect(rows.find((row) => row.name === 'swarm-plugin-gpu')).toMatchObject({ compatible: true, provides: ['filter gpu'] });
    expect(rows.find((row) => row.name === 'swarm-plugin-sim')).toMatchObject({ compatible: true, provides: ['cluster driver sim'] });
    expect(rows.find((row) => row.name === 'swarm-plugin-pool')).toMatchObject({ compatible: true, provides: ['discovery backend pool'] });
    expect(rows.find((row) => row.name === 'swarm-plugin-readonly')).toMatchObject({ compatible: true, provides: ['authorizer readonly'] });
    expect(rows.find((row) => row.name === 'swarm-plugin-limits')).toMatchObject({
      compatible: true,
      provides: ['admission controller limits'],
    });
    expect(rows.length).toBeGreaterThanOrEqual(21);
    for (const row of rows) expect(row.resolved.startsWith(join(project, 'node_modules'))).toBe(true);
    expect((await swarm('--version')).stdout.trim()).toMatch(/^swarm version \d+\.\d+\.\d+$/);
  });

  it('scaffolds a filter, a driver, a discovery backend, an authorizer and an admission controller with swarm plugin init, each passing its own conformance tests', () => {
    expect(scaffolded).toContain('Created filter "gpu"');
    expect(scaffolded).toContain('Created driver "sim"');
    expect(scaffolded).toContain('Created discovery "pool"');
    expect(scaffolded).toContain('Created authz "readonly"');
    expect(scaffolded).toContain('Created admission "limits"');
    // eslint-disable-next-line no-control-regex -- vitest colours its summary
    const colours = /\u001b\[[0-9;]*m/g;
    const summary = (kind: string) => /Tests\s+(.*)/.exec(authorTests[kind]!.replace(colours, ''))?.[1]?.trim();
    expect(summary('filter')).toBe('10 passed (10)');
    expect(summary('driver')).toBe('10 passed (10)');
    expect(summary('discovery')).toBe('8 passed (8)');
    // the authz and admission kits' nine checks each, and three cases
    expect(summary('authz')).toBe('12 passed (12)');
    expect(summary('admission')).toBe('12 passed (12)');
  });

  it('runs the scaffolded driver: docker info shows its nodes and docker run places on them', async () => {
    const sim = spawn(
      join(project, 'node_modules', '.bin', 'swarm'),
      ['manage', '-c', 'sim', '--cluster-opt', 'sim.nodes=3', '-H', `tcp://127.0.0.1:${SIM_PORT}`],
      { cwd: project, env: userEnv() },
    );
    let simOutput = '';
    sim.stderr!.on('data', (chunk: Buffer) => (simOutput += chunk.toString()));
    const simDocker = async (...args: string[]) => (await run('docker', ['-H', `tcp://127.0.0.1:${SIM_PORT}`, ...args])).stdout.trim();
    try {
      let nodes = '';
      for (let attempt = 0; attempt < 100 && nodes === ''; attempt++) {
        nodes = await simDocker('info', '--format', '{{json .SystemStatus}}').catch(() => '');
        if (nodes === '') await new Promise((resolve) => setTimeout(resolve, 200));
      }
      const rows = JSON.parse(nodes || '[]') as Array<[string, string]>;
      expect(rows, simOutput).toContainEqual(['Nodes', '3']);
      expect(rows.filter(([key]) => key === '  └ Status').map(([, value]) => value)).toEqual(['Healthy', 'Healthy', 'Healthy']);
      await simDocker('run', '-d', '--name', 'simulated', '-m', '1g', 'busybox', 'sleep', '60');
      expect(await simDocker('ps', '--format', '{{.Names}} {{.Status}}')).toMatch(/^sim\d\/simulated Up /);
    } finally {
      sim.kill('SIGTERM');
    }
  });

  it('manages real engines and places with the third-party filters', async () => {
    const engines = [maintenance.engines[0]!, open.engines[0]!].map((engine) => engine.addr).join(',');
    // no -H: the config's api.hosts; the engines found by the scaffolded pool:// discovery
    manager = spawn(join(project, 'node_modules', '.bin', 'swarm'), ['manage', `pool://${engines}`], { cwd: project, env: userEnv() });
    manager.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    manager.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      const info = await run('docker', ['-H', `tcp://127.0.0.1:${PORT}`, 'info', '--format', '{{json .SystemStatus}}']).catch(
        () => undefined,
      );
      if (info && healthyNodeCount({ SystemStatus: JSON.parse(info.stdout) as Array<[string, string]> }) === 2) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    for (const name of ['in1', 'in2', 'in3']) await docker('run', '-d', '--name', name, 'busybox:local', 'sleep', '300');
    const names = (await docker('ps', '--format', '{{.Names}}')).split('\n').sort();
    expect(names, output).toEqual(['node234/in1', 'node234/in2', 'node234/in3']);
    // swarm schedule asks the manager the config names, and shows the third-party filter's verdicts
    const explained = (await swarm('schedule', '--explain', '-e', 'gpu=required', 'busybox:local')).stdout;
    expect(explained).toMatch(/^node233\s+no\s.*maintenance: node in maintenance/m);
    await docker('run', '-d', '--name', 'needs-gpu', '-e', 'gpu=required', 'busybox:local', 'sleep', '300');
    expect(await docker('inspect', '-f', '{{.Node.Name}}', 'needs-gpu')).toBe('node234');
    await docker('rm', '-f', 'in1', 'in2', 'in3', 'needs-gpu');
  });
});
