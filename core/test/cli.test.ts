import { readFileSync } from 'node:fs';
import { PLUGIN_API_VERSION } from '@swarm/plugin-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSwarm } from './support/run-cli.js';
import { createTempProject, filtersBody, memoryDriverBody, strategyBody, type TempProject } from './support/temp-project.js';

const VERSION = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

let project: TempProject;

beforeAll(() => {
  project = createTempProject();
  project.addPlugin('swarm-plugin-memory', {
    register: `${memoryDriverBody()}\n    ${strategyBody('first')}`,
    kinds: ['driver', 'strategy'],
  });
  project.addPlugin('swarm-plugin-gpu', { version: '1.4.0', register: filtersBody('gpu'), kinds: ['filter'] });
  project.addPlugin('swarm-plugin-future', { version: '2.1.0', apiVersion: '^3.0.0', register: filtersBody('future') });
  project.write('swarm.config.js', "export default { plugins: ['memory', 'gpu', 'future'] };\n");
  project.write(
    'typo/swarm.config.js',
    "export default { plugins: ['memory', 'gpu'], cluster: { driver: 'memory' }, scheduler: { filters: ['gpu', 'gpux'], strategy: 'first' } };\n",
  );
  project.write('clean/.swarmrc.json', JSON.stringify({ plugins: ['memory'], cluster: { driver: 'memory' } }));
  project.addPlugin('swarm-plugin-myhealth', { version: '0.3.0', register: filtersBody('health'), kinds: ['filter'] });
  project.write('clash/.swarmrc.json', JSON.stringify({ plugins: ['myhealth'] }));
  project.write(
    'typos/swarm.config.js',
    "export default { plugins: ['gpu'], scheduler: { filters: ['health', 'gpux', 'constrant'], strategy: 'sprad' } };\n",
  );
  project.write('unlisted/.swarmrc.json', JSON.stringify({ plugins: [], scheduler: { filters: ['health', 'gpu'] } }));
  project.write('shape/.swarmrc.json', JSON.stringify({ cluster: { heartbeat: true } }));
  project.write('gup/.swarmrc.json', JSON.stringify({ plugins: ['gup'] }));
  project.write('future/.swarmrc.json', JSON.stringify({ plugins: ['future'] }));
});

afterAll(() => project.remove());

/** Exit code 1 and exactly one line on stderr. */
function expectOneLineError(result: { code: number; stderr: string }, message: string): void {
  expect(result.code).toBe(1);
  expect(result.stderr).toBe(`${message}\n`);
}

describe('swarm --version and --help', () => {
  it('prints the version', async () => {
    const result = await runSwarm(['--version']);
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe(`swarm version ${VERSION}`);
  });

  it('lists the commands', async () => {
    const result = await runSwarm(['--help']);
    for (const command of ['manage', 'join', 'list', 'plugins', 'schedule']) expect(result.stdout).toContain(command);
  });
});

describe('swarm manage flag validation', () => {
  const cases: Array<[string[], string]> = [
    [['manage'], "discovery required to manage a cluster. See 'swarm manage --help'."],
    [['manage', '--heartbeat', '500ms', '127.0.0.1:1'], '--heartbeat should be at least one second'],
    [['manage', '--heartbeat', '5', '127.0.0.1:1'], 'invalid --heartbeat: time: missing unit in duration "5"'],
    [['manage', '--engine-refresh-min-interval', '0s', '127.0.0.1:1'], 'min refresh interval should be a positive number'],
    [
      ['manage', '--engine-refresh-min-interval', '40s', '--engine-refresh-max-interval', '35s', '127.0.0.1:1'],
      'max refresh interval cannot be less than min refresh interval',
    ],
    [['manage', '--engine-failure-retry', '0', '127.0.0.1:1'], 'invalid failure retry count'],
    [['manage', '--engine-refresh-retry', '5', '127.0.0.1:1'], '--engine-refresh-retry is deprecated. Use --engine-failure-retry'],
    [['manage', '--tls', '127.0.0.1:1'], '--tlscert and --tlskey must be provided when using --tls'],
    [
      ['manage', '--tlsverify', '--tlscert', 'c.pem', '--tlskey', 'k.pem', '127.0.0.1:1'],
      '--tlscacert must be provided when using --tlsverify',
    ],
    [['manage', '--tlscert', 'c.pem', '127.0.0.1:1'], '--tlscert, --tlskey and --tlscacert require the use of either --tls or --tlsverify'],
    [['manage', '--discovery-opt', 'kv.path', '127.0.0.1:1'], '--discovery-opt must contain key=value strings'],
    [['manage', '--replication', '127.0.0.1:1'], '--advertise address must be provided when using --leader-election'],
    [['manage', '--replication', '--advertise', 'nowhere', '127.0.0.1:1'], '--advertise should be of the form ip:port or hostname:port'],
    [
      ['manage', '--replication', '--replication-ttl', '0s', '--advertise', '127.0.0.1:23010', '127.0.0.1:1'],
      '--replication-ttl should be a positive number',
    ],
  ];
  for (const [args, message] of cases) {
    it(`${args.slice(1).join(' ') || '(no discovery)'} → ${message}`, async () => {
      expectOneLineError(await runSwarm(args, { cwd: `${project.dir}/clean`, env: { SWARM_DISCOVERY: '' } }), message);
    });
  }

  it('lists the available strategies for an unknown --strategy', async () => {
    const result = await runSwarm(['manage', '--strategy', 'nope', '127.0.0.1:1'], { cwd: `${project.dir}/clean` });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^unknown strategy "nope"; available: binpack, .*first, random, spread\n$/);
  });

  it('refuses --replication with a discovery that cannot elect a primary', async () => {
    const result = await runSwarm(['manage', '--replication', '--advertise', '127.0.0.1:23010', '127.0.0.1:1'], {
      cwd: `${project.dir}/clean`,
    });
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain('--replication needs a key-value discovery store (zk://, etcd://)');
  });

  it('reports every unknown name of a config file at once, one line each', async () => {
    const result = await runSwarm(['manage', '127.0.0.1:1'], { cwd: `${project.dir}/typos` });
    expect(result.code).toBe(1);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^scheduler\.filters\[1\]: unknown filter "gpux"; available: .*; did you mean "gpu"\?$/);
    expect(lines[1]).toMatch(/^scheduler\.filters\[2\]: unknown filter "constrant"; available: .*; did you mean "constraint"\?$/);
    expect(lines[2]).toMatch(/^scheduler\.strategy: unknown strategy "sprad"; available: .*; did you mean "spread"\?$/);
  });

  it('says which installed plugin provides a name the config forgot to list', async () => {
    expectOneLineError(
      await runSwarm(['manage', '127.0.0.1:1'], { cwd: `${project.dir}/unlisted` }),
      'scheduler.filters[1]: unknown filter "gpu"; available: affinity, constraint, containerslots, dependency, health, port, whitelist; swarm-plugin-gpu (installed here) provides it: add \'swarm-plugin-gpu\' to plugins',
    );
  });

  it('names the key path of a config file error', async () => {
    expectOneLineError(
      await runSwarm(['manage', '127.0.0.1:1'], { cwd: `${project.dir}/typo` }),
      'scheduler.filters[1]: unknown filter "gpux"; available: affinity, constraint, containerslots, dependency, gpu, health, port, whitelist; did you mean "gpu"?',
    );
    const shape = await runSwarm(['manage', '127.0.0.1:1'], { cwd: `${project.dir}/shape` });
    expect(shape.code).toBe(1);
    expect(shape.stderr).toContain('cluster.heartbeat: expected string or number, got boolean');
  });
});

describe('swarm join and list validation', () => {
  const cases: Array<[string[], string]> = [
    [['join'], "discovery required to join a cluster. See 'swarm join --help'."],
    [['join', 'nodes://127.0.0.2:2375'], 'missing mandatory --advertise flag'],
    [['join', '--advertise', '127.0.0.2', 'nodes://127.0.0.2:2375'], '--advertise should be of the form ip:port or hostname:port'],
    [['join', '--advertise', '127.0.0.2:2375', '--delay', '-1s', 'nodes://127.0.0.2:2375'], '--delay should not be a negative number'],
    [['join', '--advertise', '127.0.0.2:2375', '--heartbeat', '0s', 'nodes://127.0.0.2:2375'], '--heartbeat should be at least one second'],
    [
      ['join', '--advertise', '127.0.0.2:2375', '--heartbeat', '10s', '--ttl', '10s', 'nodes://127.0.0.2:2375'],
      '--ttl must be strictly superior to the heartbeat value',
    ],
    [['list'], "discovery required to list a cluster. See 'swarm list --help'."],
    [['list', '--timeout', 'soon', '127.0.0.2:2375'], 'invalid --timeout: time: invalid duration "soon"'],
  ];
  for (const [args, message] of cases) {
    it(`${args.join(' ')} → ${message}`, async () => {
      expectOneLineError(await runSwarm(args, { env: { SWARM_DISCOVERY: '' } }), message);
    });
  }

  it('lists the engines of a nodes:// discovery through the generic Discovery interface', async () => {
    const result = await runSwarm(['list', 'nodes://127.0.0.2:2375,127.0.0.[3:4]:2375']);
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe('127.0.0.2:2375\n127.0.0.3:2375\n127.0.0.4:2375\n');
  });

  it('takes the discovery from $SWARM_DISCOVERY', async () => {
    const result = await runSwarm(['list'], { env: { SWARM_DISCOVERY: '127.0.0.5:2375' } });
    expect(result.stdout).toBe('127.0.0.5:2375\n');
  });
});

describe('swarm plugins', () => {
  it('lists built-ins and configured plugins, incompatible ones included', async () => {
    const result = await runSwarm(['plugins', '--json'], { cwd: project.dir });
    // swarm-plugin-future needs plugin API ^3.0.0: `swarm manage` would refuse it
    expect(result.code).toBe(1);
    const rows = JSON.parse(result.stdout) as Array<{
      name: string;
      version: string;
      kinds: string[];
      apiVersion: string;
      compatible: boolean;
      builtin: boolean;
      resolved: string;
    }>;
    const gpu = rows.find((row) => row.name === 'swarm-plugin-gpu');
    expect(gpu).toMatchObject({
      version: '1.4.0',
      kinds: ['filter'],
      provides: ['filter gpu'],
      apiVersion: '^2.0.0',
      compatible: true,
      builtin: false,
      resolved: `${project.dir}/node_modules/swarm-plugin-gpu`,
    });
    expect(gpu).not.toHaveProperty('error');
    expect(rows.find((row) => row.name === 'swarm-plugin-memory')?.kinds).toEqual(['cluster driver', 'strategy']);
    expect(rows.find((row) => row.name === 'swarm-plugin-future')).toMatchObject({
      version: '2.1.0',
      apiVersion: '^3.0.0',
      compatible: false,
    });
    expect(rows.find((row) => row.name === '@swarm/filter-constraint')).toMatchObject({
      kinds: ['filter'],
      compatible: true,
      builtin: true,
    });
  });

  it('prints a table', async () => {
    const result = await runSwarm(['plugins'], { cwd: project.dir });
    const lines = result.stdout.split('\n');
    expect(result.code).toBe(1);
    expect(lines[0]).toMatch(/^NAME\s+VERSION\s+KINDS\s+PROVIDES\s+API\s+COMPATIBLE\s+RESOLVED FROM$/);
    expect(lines.find((line) => line.startsWith('swarm-plugin-future'))).toMatch(
      /^swarm-plugin-future\s+2\.1\.0\s+filter\s+filter \S+\s+\^3\.0\.0\s+no\s+\//,
    );
    expect(lines.find((line) => line.startsWith('swarm-plugin-gpu'))).toMatch(/\s+filter gpu\s+\^2\.0\.0\s+yes\s+/);
    expect(lines.find((line) => line.startsWith('@swarm/strategy-spread'))).toMatch(/\s+strategy spread\s+/);
  });
});

describe('swarm plugins tells the truth about what swarm manage would refuse', () => {
  it('exits 1 for a filter no plugin provides, with a config row carrying the error', async () => {
    const result = await runSwarm(['plugins', '--json'], { cwd: `${project.dir}/typo` });
    expect(result.code).toBe(1);
    const rows = JSON.parse(result.stdout) as Array<{ name: string; package: string; error?: string; resolved: string }>;
    expect(rows.at(-1)).toMatchObject({
      name: 'config',
      resolved: `${project.dir}/typo/swarm.config.js`,
      error: expect.stringMatching(/^scheduler\.filters\[1\]: unknown filter "gpux"; .*did you mean "gpu"\?$/) as unknown,
    });
    const table = await runSwarm(['plugins'], { cwd: `${project.dir}/typo` });
    expect(table.code).toBe(1);
    expect(table.stdout).toMatch(/^config: scheduler\.filters\[1\]: unknown filter "gpux"/m);
    expect((await runSwarm(['plugins', '--help'])).stdout).toContain(
      'Exit status: 0 when swarm manage would load this config, 1 when it would refuse it',
    );
  });

  it('names the package and gives both ways out for an incompatible plugin', async () => {
    const result = await runSwarm(['plugins', '--json'], { cwd: `${project.dir}/future` });
    expect(result.code).toBe(1);
    const rows = JSON.parse(result.stdout) as Array<{ name: string; package: string; error?: string }>;
    const wants = String.raw`\^\d+\.0\.0`;
    const provided = PLUGIN_API_VERSION.replaceAll('.', '\\.');
    expect(rows.find((row) => row.name === 'swarm-plugin-future')).toMatchObject({
      package: 'swarm-plugin-future',
      error: expect.stringMatching(
        new RegExp(
          `requires plugin API ${wants}, this swarm provides ${provided}; either upgrade swarm \\(@swarm/core\\) to a version that ` +
            `provides plugin API ${wants}, or install a version of swarm-plugin-future built for plugin API ${provided} `,
        ),
      ) as unknown,
    });
  });

  it('suggests the installed plugin a mistyped name meant before an npm install of a name nobody published', async () => {
    const result = await runSwarm(['plugins', '--json'], { cwd: `${project.dir}/gup` });
    expect(result.code).toBe(1);
    const rows = JSON.parse(result.stdout) as Array<{ name: string; package: string; error?: string }>;
    expect(rows.find((row) => row.name === 'gup')).toMatchObject({
      package: 'swarm-plugin-gup',
      error: expect.stringContaining(
        "did you mean 'gpu'? (swarm-plugin-gpu is installed here: list it in plugins as 'gpu'); otherwise install it with: npm install swarm-plugin-gup",
      ) as unknown,
    });
  });
});

describe('swarm plugins with a name provided twice', () => {
  it('names both providers and exits non-zero, as swarm manage would refuse them', async () => {
    const result = await runSwarm(['plugins', '--json'], { cwd: `${project.dir}/clash` });
    expect(result.code).toBe(1);
    const rows = JSON.parse(result.stdout) as Array<{ name: string; provides: string[]; error?: string }>;
    expect(rows.find((row) => row.name === 'swarm-plugin-myhealth')).toMatchObject({
      provides: ['filter health'],
      error: 'filter health is also provided by @swarm/filter-health (built in)',
    });
    const clean = await runSwarm(['plugins'], { cwd: `${project.dir}/clean` });
    expect(clean.code).toBe(0);
  });
});

describe('swarm schedule', () => {
  it('asks for --explain', async () => {
    const result = await runSwarm(['schedule', 'busybox:local']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('swarm schedule only explains placements for now: add --explain\n');
  });

  it('says when the manager cannot be reached', async () => {
    const result = await runSwarm(['schedule', '--explain', '-H', 'tcp://127.0.0.1:23099', '-m', '64m', 'busybox:local', 'sleep', '1']);
    // 2: an error, not a refusal (1)
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^Cannot connect to the swarm manager at tcp:\/\/127\.0\.0\.1:23099: .*ECONNREFUSED/);
  });
});
