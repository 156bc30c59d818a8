import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { candidatePackages, createSwarm, ErrorCodes, loadPlugins, resolvePlugin, type SwarmError } from '@swarm/core';
import { PLUGIN_API_VERSION, Tokens } from '@swarm/plugin-sdk';
import { named } from '../dist/plugins/extension-kinds.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTempProject, filtersBody, memoryDriverBody, strategyBody, type TempProject } from './support/temp-project.js';
import { container as globalContainer } from 'tsyringe';

const REPO = fileURLToPath(new URL('../..', import.meta.url));

async function failure(promise: Promise<unknown>): Promise<SwarmError> {
  try {
    await promise;
  } catch (error) {
    return error as SwarmError;
  }
  throw new Error('expected a failure');
}

let project: TempProject;

beforeAll(() => {
  project = createTempProject();
  project.addPlugin('swarm-plugin-gpu', { register: filtersBody('gpu') });
  project.addPlugin('@acme/swarm-plugin-rack', { register: filtersBody('rack') });
  project.addPlugin('@acme/zone', { register: filtersBody('zone') });
  project.addPlugin('swarm-plugin-future', { version: '2.1.0', apiVersion: '^3.0.0', register: filtersBody('future') });
  project.addPlugin('swarm-plugin-plain', {
    source: "export default { name: 'plain', version: '1.0.0', apiVersion: '^2.0.0', register() {} };",
  });
  project.addPlugin('swarm-plugin-noregister', {
    source:
      "import { definePlugin } from '@swarm/plugin-sdk';\nexport default definePlugin({ name: 'noregister', version: '1.0.0', apiVersion: '^2.0.0' });",
  });
  project.addPlugin('swarm-plugin-badversion', { version: 'one', register: filtersBody('x') });
  project.addPlugin('swarm-plugin-twin-a', { register: filtersBody('twin') });
  project.addPlugin('swarm-plugin-twin-b', { register: filtersBody('twin') });
  project.addPlugin('swarm-plugin-throws', { register: `${filtersBody('early')}\n    throw new Error('no GPU driver on this host');` });
  project.addPlugin('swarm-plugin-memory', { register: `${memoryDriverBody()}\n    ${strategyBody('first')}` });
  project.addPlugin('local-plugin', { register: filtersBody('local') }, 'plugins');
});

afterAll(() => project.remove());

describe('plugin names', () => {
  it('tries the built-in packages, then swarm-plugin-<name>, for a short name', () => {
    expect(candidatePackages('constraint')).toEqual([
      '@swarm/constraint',
      '@swarm/filter-constraint',
      '@swarm/strategy-constraint',
      '@swarm/driver-constraint',
      '@swarm/discovery-constraint',
      'swarm-plugin-constraint',
      'constraint',
    ]);
    expect(candidatePackages('@acme/foo')).toEqual(['@acme/swarm-plugin-foo', '@acme/foo']);
    expect(candidatePackages('swarm-plugin-gpu')).toEqual(['swarm-plugin-gpu']);
  });

  it('resolves a short built-in name to the built-in package', () => {
    const location = resolvePlugin('constraint', REPO);
    expect(location.packageName).toBe('@swarm/filter-constraint');
    expect(location.dir).toBe(join(REPO, 'plugins', 'filter-constraint'));
  });

  it('resolves short, full, scoped and relative names from the config folder', async () => {
    const plugins = await loadPlugins(['gpu', 'swarm-plugin-gpu', '@acme/rack', '@acme/zone', './plugins/local-plugin'], project.dir);
    expect(plugins.map((plugin) => plugin.packageName)).toEqual([
      'swarm-plugin-gpu',
      'swarm-plugin-gpu',
      '@acme/swarm-plugin-rack',
      '@acme/zone',
      'local-plugin',
    ]);
    expect(plugins[4]!.dir).toBe(join(project.dir, 'plugins', 'local-plugin'));
  });
});

describe('plugin errors', () => {
  it('names the packages tried and the npm install line for a missing plugin', async () => {
    const error = await failure(loadPlugins(['nope'], project.dir));
    expect(error.code).toBe(ErrorCodes.PLUGIN_NOT_FOUND);
    expect(error.message).toContain('plugin "nope" not found');
    expect(error.message).toContain('@swarm/filter-nope');
    expect(error.message).toContain('npm install swarm-plugin-nope');
  });

  it('refuses an incompatible plugin before calling register, with the exact message', async () => {
    const error = await failure(loadPlugins(['future'], project.dir));
    expect(error.code).toBe(ErrorCodes.PLUGIN_INCOMPATIBLE);
    expect(error.message).toBe(
      `plugin "swarm-plugin-future@2.1.0" requires plugin API ^3.0.0, this swarm provides ${PLUGIN_API_VERSION}; either upgrade swarm ` +
        `(@swarm/core) to a version that provides plugin API ^3.0.0, or install a version of swarm-plugin-future built for ` +
        `plugin API ${PLUGIN_API_VERSION} (one whose apiVersion range includes ${PLUGIN_API_VERSION})`,
    );
  });

  it('says which manifest field is wrong', async () => {
    const plain = await failure(loadPlugins(['plain'], project.dir));
    expect(plain.code).toBe(ErrorCodes.PLUGIN_INVALID_MANIFEST);
    expect(plain.message).toContain('not made with definePlugin()');
    const noRegister = await failure(loadPlugins(['noregister'], project.dir));
    expect(noRegister.message).toContain('field "register" is missing or not a function');
    const badVersion = await failure(loadPlugins(['badversion'], project.dir));
    expect(badVersion.message).toContain('field "version" is not a semver version: "one"');
  });

  it('names both packages when two provide the same filter', async () => {
    const error = await failure(createSwarm({ plugins: ['twin-a', 'twin-b'] }, { configDir: project.dir }));
    expect(error.code).toBe(ErrorCodes.PLUGIN_DUPLICATE_PROVIDER);
    expect(error.message).toBe('filter "twin" is provided twice: by "swarm-plugin-twin-a" and by "swarm-plugin-twin-b"');
  });

  it('names the plugin and the cause when register throws, and registers nothing', async () => {
    const error = await failure(createSwarm({ plugins: ['memory', 'gpu', 'throws'] }, { configDir: project.dir }));
    expect(error.code).toBe(ErrorCodes.PLUGIN_REGISTER_FAILED);
    expect(error.message).toBe('plugin "swarm-plugin-throws" failed in register(): no GPU driver on this host');
    const root = globalContainer;
    expect(root.isRegistered(named(Tokens.Filter, 'early'), true)).toBe(false);
    expect(root.isRegistered(named(Tokens.Filter, 'gpu'), true)).toBe(false);
    expect(root.isRegistered(named(Tokens.ClusterDriver, 'memory'), true)).toBe(false);
  });
});

describe('built-ins', () => {
  it('imports only the built-ins a deployment needs', async () => {
    const swarm = await createSwarm({ cluster: { discovery: 'nodes://127.0.0.1:23090' } });
    const names = swarm.deployment.plugins.map((plugin) => plugin.packageName).sort();
    expect(names).toEqual([
      '@swarm/discovery-nodes',
      '@swarm/driver-swarm',
      '@swarm/filter-affinity',
      '@swarm/filter-constraint',
      '@swarm/filter-containerslots',
      '@swarm/filter-dependency',
      '@swarm/filter-health',
      '@swarm/filter-port',
      '@swarm/filter-whitelist',
      '@swarm/strategy-spread',
    ]);
  });

  it('loads every built-in when a name is not one by convention (an alias), so it still resolves', async () => {
    const swarm = await createSwarm({ cluster: { discovery: '127.0.0.1:23091' }, scheduler: { strategy: 'binpacking' } });
    const names = swarm.deployment.plugins.map((plugin) => plugin.packageName);
    expect(names).toContain('@swarm/strategy-binpack');
    expect(names).toContain('@swarm/driver-mesos');
    expect(swarm.scheduler.strategyName).toMatch(/^binpack/);
  });
});

describe('configured names', () => {
  it('lists the available filters with the key path for an unknown one', async () => {
    const error = await failure(
      createSwarm(
        {
          plugins: ['memory', 'gpu', '@acme/rack'],
          cluster: { driver: 'memory' },
          scheduler: { filters: ['gpu', 'rack', 'gpux'], strategy: 'first' },
        },
        { configDir: project.dir },
      ),
    );
    expect(error.code).toBe(ErrorCodes.UNKNOWN_PROVIDER);
    expect(error.message).toMatch(/^scheduler\.filters\[2\]: unknown filter "gpux"; available: /);
    expect(error.message).toContain('gpu, ');
    expect(error.message).toContain('rack');
  });

  it('lists the available strategies and drivers', async () => {
    const strategy = await failure(
      createSwarm(
        { plugins: ['memory'], cluster: { driver: 'memory' }, scheduler: { filters: [], strategy: 'frist' } },
        { configDir: project.dir },
      ),
    );
    expect(strategy.message).toMatch(/^scheduler\.strategy: unknown strategy "frist"; available: .*first/);
    expect(strategy.message).toMatch(/; did you mean "first"\?$/);
    const driver = await failure(createSwarm({ plugins: ['memory'], cluster: { driver: 'memroy' } }, { configDir: project.dir }));
    expect(driver.message).toMatch(/^cluster\.driver: unknown cluster driver "memroy"; available: .*memory/);
    expect(driver.message).toMatch(/; did you mean "memory"\?$/);
  });
});
