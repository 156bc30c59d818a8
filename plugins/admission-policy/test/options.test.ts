import { describe, expect, it } from 'vitest';
import { ErrorCodes } from '@swarm/plugin-sdk';
import { PolicyErrors, parsePolicyOptions } from '@swarm/admission-policy';
import { controller } from './support.js';

describe('options', () => {
  it('normalises the allowed host paths', () => {
    const settings = parsePolicyOptions({ allowedHostPaths: ['/data/', '/srv/../var//log/apps', '/'] });
    expect(settings.allowedHostPaths).toEqual(['/data', '/var/log/apps', '/']);
    expect(settings.defaultLevel).toBe('baseline');
    expect(settings.bindings).toEqual([]);
  });

  it.each([
    [
      { defaults: 'baseline' },
      'admission "policy": unknown option defaults; known options: default, bindings, allowedHostPaths',
      PolicyErrors.optionUnknown,
    ],
    [
      { default: 'strict' },
      'admission "policy": option default must be one of privileged, baseline, restricted, got "strict"',
      PolicyErrors.levelUnknown,
    ],
    [{ bindings: 'team-a' }, 'admission "policy": option bindings must be a list of bindings, got "team-a"', PolicyErrors.optionType],
    [
      { bindings: ['team-a'] },
      'admission "policy": option bindings[0] must be an object { user | group, level }, got "team-a"',
      PolicyErrors.optionType,
    ],
    [
      {
        bindings: [
          { group: 'a', level: 'baseline' },
          { group: 'b', level: 'Restricted' },
        ],
      },
      'admission "policy": option bindings[1].level must be one of privileged, baseline, restricted, got "Restricted"',
      PolicyErrors.levelUnknown,
    ],
    [
      { bindings: [{ level: 'baseline' }] },
      'admission "policy": option bindings[0] needs exactly one of user and group',
      PolicyErrors.bindingSubject,
    ],
    [
      { bindings: [{ user: 'a', group: 'b', level: 'baseline' }] },
      'admission "policy": option bindings[0] needs exactly one of user and group',
      PolicyErrors.bindingSubject,
    ],
    [
      { bindings: [{ user: '', level: 'baseline' }] },
      'admission "policy": option bindings[0].user must be a non-empty string, got ""',
      PolicyErrors.optionType,
    ],
    [
      { bindings: [{ group: 7, level: 'baseline' }] },
      'admission "policy": option bindings[0].group must be a non-empty string, got 7',
      PolicyErrors.optionType,
    ],
    [
      { bindings: [{ group: 'a' }] },
      'admission "policy": option bindings[0].level must be one of privileged, baseline, restricted, got undefined',
      PolicyErrors.levelUnknown,
    ],
    [
      { bindings: [{ group: 'a', level: 'baseline', role: 'x' }] },
      'admission "policy": unknown option bindings[0].role; known options: user, group, level',
      PolicyErrors.optionUnknown,
    ],
    [
      { allowedHostPaths: '/data' },
      'admission "policy": option allowedHostPaths must be a list of absolute paths, got "/data"',
      PolicyErrors.optionType,
    ],
    [
      { allowedHostPaths: ['/data', 'logs'] },
      'admission "policy": option allowedHostPaths[1] must be an absolute path (/data), got "logs"',
      PolicyErrors.hostPathRelative,
    ],
  ] as const)('refuses %j', (options, message, entry) => {
    let thrown: unknown;
    try {
      controller(options);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({ code: ErrorCodes.CONFIG_INVALID, message });
    expect(entry.is(thrown)).toBe(true);
  });
});
