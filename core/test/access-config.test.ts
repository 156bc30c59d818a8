import { resolveConfig, validateConfigShape, type SwarmError } from '@swarm/core';
import { describe, expect, it } from 'vitest';

function thrown(run: () => unknown): SwarmError {
  try {
    run();
  } catch (error) {
    return error as SwarmError;
  }
  throw new Error('expected a failure');
}

describe('access in the config', () => {
  it("is absent unless asked for: Swarm classic's everyone-may-do-anything", () => {
    expect(resolveConfig([]).config.access).toBeUndefined();
  });

  it('reads plugins by name or [name, options], with tls as the default authenticator', () => {
    const { config } = resolveConfig([
      { origin: 'file', input: { access: { authz: [['rules', { bindings: [] }]], admission: ['policy'] } } },
    ]);
    expect(config.access).toEqual({
      authn: [{ name: 'tls', options: {} }],
      authz: [{ name: 'rules', options: { bindings: [] } }],
      admission: [{ name: 'policy', options: {} }],
      managersGroup: undefined,
      audit: undefined,
    });
  });

  it('puts Docker AuthZ plugins first, in flag order, and a token file after the authenticators', () => {
    const { config } = resolveConfig([
      { origin: 'file', input: { access: { authz: ['rules'] } } },
      { origin: 'flags', input: { access: { authorizationPlugins: ['opa', 'unix:///run/other.sock'], tokenFile: 'tokens.csv' } } },
    ]);
    expect(config.access?.authz.map((entry) => [entry.name, entry.options])).toEqual([
      ['docker', { plugin: 'opa' }],
      ['docker', { plugin: 'unix:///run/other.sock' }],
      ['rules', {}],
    ]);
    expect(config.access?.authn).toEqual([
      { name: 'tls', options: {} },
      { name: 'token-file', options: { path: 'tokens.csv' } },
    ]);
  });

  it('reads the audit log settings with sizes as docker writes them', () => {
    const { config } = resolveConfig([{ origin: 'flags', input: { access: { audit: { path: '-', maxSize: '10m', maxBackups: 2 } } } }]);
    expect(config.access?.audit).toEqual({ path: '-', maxSizeBytes: 10 * 1024 * 1024, maxBackups: 2 });
    const error = thrown(() => resolveConfig([{ origin: 'file', input: { access: { audit: { path: 'a.log', maxSize: 'lots' } } } }]));
    expect(error.message).toContain('access.audit.maxSize');
  });

  it('names the key path of a wrong shape', () => {
    const error = thrown(() => validateConfigShape({ access: { authz: [42] } }, 'swarm.config.js'));
    expect(error.message).toContain('access.authz[0]');
    const unknown = thrown(() => validateConfigShape({ access: { authorisation: [] } }, 'swarm.config.js'));
    expect(unknown.message).toContain('access.authorisation: unknown key');
  });
});
