import { readFileSync } from 'node:fs';
import { Tokens } from '@swarm/plugin-sdk';
import { describe, expect, it } from 'vitest';
import { missingOptionalBuiltin } from '../dist/deployment/optional-builtins.js';
import { unknownProvider } from '../dist/deployment/unknown-provider.js';
import { CoreErrors } from '../dist/errors.js';

// The lean image installs @swarm/core without its optional dependencies (the Kubernetes driver);
// `-c kubernetes` there must say which package and image have it. test/e2e/deploy-image.test.ts
// runs it in the real image; this checks the rule on the installs a test can describe.
const core = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  dependencies: Record<string, string>;
  optionalDependencies?: Record<string, string>;
};

describe('optional built-ins', () => {
  it('are what @swarm/core lists as optional: the Kubernetes driver, and it alone', () => {
    expect(Object.keys(core.optionalDependencies ?? {})).toEqual(['@swarm/driver-kubernetes']);
    expect(core.dependencies['@swarm/driver-kubernetes']).toBeUndefined();
  });

  it('names the package and the image of a driver an install left out, and nothing when it is installed or not optional', () => {
    const none = () => [];
    expect(missingOptionalBuiltin(Tokens.ClusterDriver, 'kubernetes', none)).toEqual({
      packageName: '@swarm/driver-kubernetes',
      image: 'swarm-kubernetes',
    });
    expect(missingOptionalBuiltin(Tokens.ClusterDriver, 'kubernetes', () => ['@swarm/driver-kubernetes'])).toBeUndefined();
    expect(missingOptionalBuiltin(Tokens.ClusterDriver, 'mesos', none)).toBeUndefined();
    expect(missingOptionalBuiltin(Tokens.Filter, 'kubernetes', none)).toBeUndefined();
    // this checkout installs every built-in
    expect(missingOptionalBuiltin(Tokens.ClusterDriver, 'kubernetes')).toBeUndefined();
  });

  it('the refusal names the package and the image, in the flag error and the config error alike', () => {
    const missing = { packageName: '@swarm/driver-kubernetes', image: 'swarm-kubernetes' };
    const text = (origin: 'flags' | 'file') =>
      CoreErrors.unknownProvider({
        kind: 'cluster driver',
        name: 'kubernetes',
        available: ['mesos', 'swarm'],
        origin,
        keyPath: 'cluster.driver',
        missing,
      }).message;
    const hint =
      'unknown cluster driver "kubernetes"; available: mesos, swarm; it is in @swarm/driver-kubernetes, an optional dependency of @swarm/core not installed here (the lean image swarm leaves it out): use the image swarm-kubernetes, or npm install @swarm/driver-kubernetes';
    expect(text('flags')).toBe(hint);
    expect(text('file')).toBe(`cluster.driver: ${hint}`);
    // where it is installed, the usual refusal
    const error = unknownProvider(Tokens.ClusterDriver, 'kubernetes', ['mesos', 'swarm'], 'flags', 'cluster.driver');
    expect(error.message).toBe('unknown cluster driver "kubernetes"; available: mesos, swarm');
  });
});
