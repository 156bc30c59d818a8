import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ErrorCodes, loadConfigFile, parseDuration, resolveConfig, validateConfigShape, type SwarmError } from '@swarm/core';
import { afterEach, describe, expect, it } from 'vitest';
import { createTempProject, type TempProject } from './support/temp-project.js';

function thrown(run: () => unknown): SwarmError {
  try {
    run();
  } catch (error) {
    return error as SwarmError;
  }
  throw new Error('expected a failure');
}

let project: TempProject | undefined;
afterEach(() => project?.remove());

describe('config files', () => {
  it('finds swarm.config.js searching up from a nested folder', async () => {
    project = createTempProject();
    project.write('swarm.config.js', "export default { scheduler: { strategy: 'binpack' } };\n");
    const nested = join(project.dir, 'a', 'b');
    mkdirSync(nested, { recursive: true });
    const found = await loadConfigFile({ cwd: nested });
    expect(found?.filepath).toBe(join(project.dir, 'swarm.config.js'));
    expect(found?.dir).toBe(project.dir);
    expect(found?.input.scheduler?.strategy).toBe('binpack');
  });

  it('reads .swarmrc.yaml and the "swarm" key of package.json', async () => {
    project = createTempProject();
    project.write('yaml/.swarmrc.yaml', 'cluster:\n  heartbeat: 10s\n');
    expect((await loadConfigFile({ cwd: join(project.dir, 'yaml') }))?.input.cluster?.heartbeat).toBe('10s');
    project.write('pkg/package.json', JSON.stringify({ name: 'x', swarm: { logLevel: 'debug' } }));
    expect((await loadConfigFile({ cwd: join(project.dir, 'pkg') }))?.input.logLevel).toBe('debug');
  });

  it('loads exactly the --config file, and says when it does not exist', async () => {
    project = createTempProject();
    const file = project.write('conf/custom.json', JSON.stringify({ plugins: ['gpu'] }));
    expect((await loadConfigFile({ path: file }))?.input.plugins).toEqual(['gpu']);
    const error = await loadConfigFile({ path: join(project.dir, 'missing.json') }).catch((e: SwarmError) => e);
    expect((error as SwarmError).code).toBe(ErrorCodes.CONFIG_NOT_FOUND);
    expect((error as SwarmError).message).toBe(`config file not found: ${join(project.dir, 'missing.json')}`);
  });

  it('names the key path of a badly shaped value in the file', async () => {
    project = createTempProject();
    const file = project.write('swarm.config.mjs', "export default { cluster: { heartbeat: true }, scheduler: { filtres: ['port'] } };\n");
    const error = (await loadConfigFile({ path: file }).catch((e: SwarmError) => e)) as SwarmError;
    expect(error.code).toBe(ErrorCodes.CONFIG_INVALID);
    expect(error.message).toContain('cluster.heartbeat: expected string or number, got boolean');
    expect(error.message).toContain('scheduler.filtres: unknown key (did you mean filters?)');
    expect(error.message).toContain(file);
  });

  it('names every unknown key of an object, with the key it most likely meant', async () => {
    project = createTempProject();
    const file = project.write('swarm.config.mjs', "export default { shceduler: {}, cluster: { driverr: 'swarm', zzz: 1 } };\n");
    const error = (await loadConfigFile({ path: file }).catch((e: SwarmError) => e)) as SwarmError;
    expect(error.message).toContain('cluster.driverr: unknown key (did you mean driver?)');
    expect(error.message).toContain('cluster.zzz: unknown key;');
    expect(error.message).toContain('shceduler: unknown key (did you mean scheduler?)');
  });
});

describe('shape checks', () => {
  it('points into arrays and enums', () => {
    const filters = thrown(() => validateConfigShape({ scheduler: { filters: ['port', 3] } }, ''));
    expect(filters.message).toBe('invalid config: scheduler.filters[1]: expected string, got number');
    const level = thrown(() => validateConfigShape({ logLevel: 'loud' }, ''));
    expect(level.message).toContain('logLevel: expected one of trace, debug, info, warn, error, fatal, silent');
  });
});

describe('resolution', () => {
  it("applies Swarm classic's defaults with no config at all", () => {
    const { config } = resolveConfig([]);
    expect(config.cluster.driver).toBe('swarm');
    expect(config.scheduler.strategy).toBe('spread');
    expect(config.scheduler.filters).toEqual(['health', 'port', 'containerslots', 'dependency', 'affinity', 'constraint', 'whitelist']);
    expect(config.cluster.heartbeat).toBe(60);
    expect(config.cluster.engineRefreshMinInterval).toBe(30);
    expect(config.cluster.engineRefreshMaxInterval).toBe(60);
    expect(config.cluster.engineFailureRetry).toBe(3);
    expect(config.replication.ttl).toBe(20);
    expect(config.api.hosts).toEqual(['tcp://127.0.0.1:2375']);
    expect(config.api.readyMinNodes).toBe(1);
  });

  it('lets flags override the file, key by key for option maps', () => {
    const { config, originOf } = resolveConfig([
      {
        origin: 'file',
        input: { cluster: { heartbeat: '10s', options: { 'swarm.overcommit': 0.05, a: 'file' } }, scheduler: { strategy: 'binpack' } },
      },
      { origin: 'flags', input: { cluster: { heartbeat: '2s', options: { a: 'flag' } } } },
    ]);
    expect(config.cluster.heartbeat).toBe(2);
    expect(config.cluster.options).toEqual({ 'swarm.overcommit': '0.05', a: 'flag' });
    expect(config.scheduler.strategy).toBe('binpack');
    expect(originOf('scheduler.strategy')).toBe('file');
    expect(originOf('cluster.driver')).toBe('defaults');
  });

  it('words checks as Swarm classic for flags and with the key path for files', () => {
    const flag = thrown(() => resolveConfig([{ origin: 'flags', input: { cluster: { engineRefreshMinInterval: '0s' } } }]));
    expect(flag.message).toBe('min refresh interval should be a positive number');
    const file = thrown(() => resolveConfig([{ origin: 'file', input: { cluster: { engineRefreshMinInterval: '90s' } } }]));
    expect(file.message).toBe('cluster.engineRefreshMinInterval: max refresh interval cannot be less than min refresh interval');
    const retry = thrown(() => resolveConfig([{ origin: 'object', input: { cluster: { engineFailureRetry: 0 } } }]));
    expect(retry.message).toBe('cluster.engineFailureRetry: invalid failure retry count');
    const duration = thrown(() => resolveConfig([{ origin: 'flags', input: { cluster: { heartbeat: '5x' } } }]));
    expect(duration.message).toBe('invalid --heartbeat: time: invalid duration "5x"');
    const fileDuration = thrown(() => resolveConfig([{ origin: 'file', input: { cluster: { heartbeat: '20 seconds' } } }]));
    expect(fileDuration.message).toBe(
      'cluster.heartbeat: time: invalid duration "20 seconds" (write a duration such as "30s", "1m30s" or "500ms", or a number of seconds)',
    );
    const advertise = thrown(() => resolveConfig([{ origin: 'flags', input: { replication: { enabled: true, advertise: 'nope' } } }]));
    expect(advertise.message).toBe('--advertise should be of the form ip:port or hostname:port');
    const readyFile = thrown(() => resolveConfig([{ origin: 'file', input: { api: { readyMinNodes: 1.5 } } }]));
    expect(readyFile.message).toBe('api.readyMinNodes: --ready-min-nodes must be a whole number of nodes, 0 or more; 1.5 is invalid');
    const readyFlag = thrown(() => resolveConfig([{ origin: 'flags', input: { api: { readyMinNodes: -1 } } }]));
    expect(readyFlag.message).toBe('--ready-min-nodes must be a whole number of nodes, 0 or more; -1 is invalid');
  });
});

describe('web extensions', () => {
  it('are off by default; ui: true (--ui) mounts the built-in view, web names others with their settings', () => {
    expect(resolveConfig([]).config.web).toEqual({});
    const { config, originOf } = resolveConfig([
      { origin: 'file', input: { ui: { readOnly: false }, web: { dashboard: true, old: true } } },
      { origin: 'flags', input: { ui: true, web: { old: false } } },
    ]);
    expect(config.web).toEqual({ ui: {}, dashboard: {} });
    expect(originOf('web.ui')).toBe('flags');
    expect(originOf('web.dashboard')).toBe('file');
  });

  it('checks the shape of ui and web entries', () => {
    expect(thrown(() => validateConfigShape({ ui: 'yes' }, 'swarm.config.js')).message).toBe(
      'invalid config in swarm.config.js: ui: expected boolean or record, got string',
    );
    expect(validateConfigShape({ web: { ui: { readOnly: false } } }, '')).toEqual({ web: { ui: { readOnly: false } } });
  });
});

describe('durations', () => {
  it('reads Go duration syntax as seconds', () => {
    expect(parseDuration('30s')).toBe(30);
    expect(parseDuration('1m30s')).toBe(90);
    expect(parseDuration('500ms')).toBe(0.5);
    expect(parseDuration('1h')).toBe(3600);
    expect(parseDuration('-1s')).toBe(-1);
    expect(parseDuration(12)).toBe(12);
    expect(() => parseDuration('30')).toThrow('time: missing unit in duration "30"');
    expect(() => parseDuration('s')).toThrow('time: invalid duration "s"');
  });
});
