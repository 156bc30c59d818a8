import { describe, expect, it } from 'vitest';
import { definePlugin, ErrorCodes, isSwarmError, PLUGIN_API_VERSION } from '@swarm/plugin-sdk';
import { checkApiVersion } from '../dist/plugins/manifest.js';

// Plugin API 2.0 keeps no compatibility layer for 1.x: a plugin written for it is refused with a
// coded error that says what changed and what to do, not only the two version numbers.
const plugin = (apiVersion: string) => definePlugin({ name: 'swarm-plugin-old', version: '1.4.0', apiVersion, register: () => undefined });

function refusal(apiVersion: string): Error {
  try {
    checkApiVersion(plugin(apiVersion));
  } catch (error) {
    return error as Error;
  }
  throw new Error(`apiVersion ${apiVersion} was accepted`);
}

describe('a plugin written for plugin API 1.x', () => {
  it('is refused with PLUGIN_INCOMPATIBLE, saying what 2.0 changed and to rebuild against the SDK', () => {
    expect(PLUGIN_API_VERSION).toBe('2.3.0');
    const error = refusal('^1.3.0');
    expect(isSwarmError(error, ErrorCodes.PLUGIN_INCOMPATIBLE)).toBe(true);
    expect(error.message).toMatch(
      /^plugin swarm-plugin-old requires plugin API \^1\.3\.0; this swarm provides 2\.3\.0: plugin API 2\.0 made /,
    );
    for (const change of [
      'Node.snapshot() and Node.watch() required',
      'Discovery.register optional',
      'imagePull',
      '@swarm/plugin-sdk/docker',
    ])
      expect(error.message).toContain(change);
    expect(error.message).toMatch(
      /rebuild swarm-plugin-old against .*declare apiVersion '\^2\.0\.0' \(see the SDK README's 'Moving to 2\.0'\)$/,
    );
  });

  it('is accepted when its range also takes 2.0, and a future major gets the plain refusal', () => {
    expect(() => checkApiVersion(plugin('>=1.4.0'))).not.toThrow();
    expect(() => checkApiVersion(plugin('^2.0.0'))).not.toThrow();
    expect(refusal('^3.0.0').message).not.toContain('Moving to 2.0');
  });
});
