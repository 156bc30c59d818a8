import { describe, expect, it } from 'vitest';
import { ErrorCodes } from '@swarm/plugin-sdk';
import { PolicyErrors, parsePolicyOptions } from '@swarm/admission-policy';
import { controller } from './support.js';

describe('options', () => {
  it('normalises the allowed host paths', () => {
    const settings = parsePolicyOptions({ allowedHostPaths: ['/data/', '/srv/../var//log/apps', '/'] });
    expect(settings.allowedHostPaths).toEqual([
      { path: '/data', readOnly: true },
      { path: '/var/log/apps', readOnly: true },
      { path: '/', readOnly: true },
    ]);
    expect(settings.defaultLevel).toBe('baseline');
    expect(settings.bindings).toEqual([]);
  });

  it.each([
    [
      { defaults: 'baseline' },
      // the options that follow are other rules' (builds: allowedUrls)
      expect.stringMatching(
        /^admission "policy": unknown option defaults; known options: default, bindings, allowedHostPaths, allowedVolumeDrivers, allowedSeccompProfiles, allowedAppArmorProfiles, allowedCgroupParents(, |$)/,
      ),
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
      'admission "policy": option allowedHostPaths must be a list of absolute paths or { path, readOnly }, got "/data"',
      PolicyErrors.optionType,
    ],
    [
      { allowedHostPaths: ['/data', 'logs'] },
      'admission "policy": option allowedHostPaths[1] must be an absolute path (/data), got "logs"',
      PolicyErrors.hostPathRelative,
    ],
    [
      { allowedHostPaths: [{ path: '/data', readOnly: 'no' }] },
      'admission "policy": option allowedHostPaths[0].readOnly must be a boolean, got "no"',
      PolicyErrors.optionType,
    ],
    [
      { allowedHostPaths: [{ path: '/data', writable: true }] },
      'admission "policy": unknown option allowedHostPaths[0].writable; known options: path, readOnly',
      PolicyErrors.optionUnknown,
    ],
    [
      { allowedHostPaths: [{ path: '/scratch', readOnly: false }, '/scratch/ro'] },
      'admission "policy": option allowedHostPaths[1] (/scratch/ro) is under the writable entry /scratch: a container could replace it with a symbolic link',
      PolicyErrors.hostPathUnderWritable,
    ],
    [
      { allowedSeccompProfiles: ['sha256:abc'] },
      'admission "policy": option allowedSeccompProfiles[0] must be a sha256:<64 hex digits> digest or a readable JSON profile file, got "sha256:abc": not 64 lower-case hex digits',
      PolicyErrors.seccompProfile,
    ],
    [
      { allowedCgroupParents: ['/tenants/../docker'] },
      'admission "policy": option allowedCgroupParents[0] must be a cgroup path without .., got "/tenants/../docker"',
      PolicyErrors.optionType,
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
