import { describe, expect, it } from 'vitest';
import type { AdmissionController, AdmissionFactory, AdmissionVerdict } from '@swarm/plugin-sdk/access';
import { ErrorCodes, SwarmError } from '@swarm/plugin-sdk';
import { admissionConformance } from '@swarm/plugin-sdk/testing';

/** A controller built from a judge function; options `{ bad: true }` are refused as a well-behaved factory would. */
const factoryOf =
  (admit: AdmissionController['admit']): AdmissionFactory =>
  ({ options }) => {
    if (options['bad'] === true) throw new SwarmError(ErrorCodes.CONFIG_INVALID, 'admission "t": option bad is not an option');
    return { admit };
  };

const noPrivileged: AdmissionController['admit'] = ({ config }) =>
  config.HostConfig?.['Privileged'] === true
    ? { allowed: false, policy: 'p', rule: 'privileged', field: 'HostConfig.Privileged' }
    : { allowed: true };

async function failureOf(factory: AdmissionFactory, options: Parameters<typeof admissionConformance>[1] = {}): Promise<string> {
  return admissionConformance(factory, { name: 't', ...options }).then(
    () => 'passed',
    (error: Error) => error.message,
  );
}

describe('admissionConformance', () => {
  it('passes a well-behaved controller', async () => {
    const factory = factoryOf(noPrivileged);
    const options = { refuses: [{ config: { Image: 'x', HostConfig: { Privileged: true } } }], invalidOptions: [{ bad: true }] };
    expect(await failureOf(factory, options)).toBe('passed');
  });

  it('catches a controller that changes the config it is given', async () => {
    const factory = factoryOf(({ config }) => {
      (config as { Labels?: Record<string, string> }).Labels = { touched: 'yes' };
      return { allowed: true };
    });
    expect(await failureOf(factory)).toMatch(/^admission "t": leaves the config it is given untouched: /);
  });

  it('catches a refusal without a field path', async () => {
    const factory = factoryOf(() => ({ allowed: false, policy: 'p', rule: 'r', field: 'the privileged flag' }));
    expect(await failureOf(factory)).toMatch(/^admission "t": answers well-formed verdicts: .*field "the privileged flag" is a path/);
  });

  it('catches an amendment it then refuses itself, and an amendment that is the given object', async () => {
    const flipFlop = factoryOf(({ config }) =>
      config.Labels?.['amended']
        ? { allowed: false, policy: 'p', rule: 'r', field: 'Labels' }
        : { allowed: true, amended: { ...config, Labels: { amended: '1' } } },
    );
    expect(await failureOf(flipFlop)).toMatch(/amends into plain JSON objects that it then allows: .*its own amendment is refused/);
    const same = factoryOf(({ config }) => ({ allowed: true, amended: config }));
    expect(await failureOf(same)).toMatch(/amended is a new object/);
  });

  it('catches what must be allowed or refused, and options accepted that must not be', async () => {
    const factory = factoryOf(noPrivileged);
    expect(await failureOf(factory, { refuses: [{ config: { Image: 'x' } }] })).toMatch(/refuses what it must refuse.*was allowed/);
    expect(await failureOf(factory, { allows: [{ config: { Image: 'x', HostConfig: { Privileged: true } } }] })).toMatch(
      /allows what it must allow.*was refused/,
    );
    expect(await failureOf(factoryOf(noPrivileged), { invalidOptions: [{ fine: true }] })).toMatch(/options \{"fine":true\} were accepted/);
  });

  it('catches a controller that throws for the anonymous caller', async () => {
    const factory = factoryOf(({ caller }): AdmissionVerdict => {
      if (caller.groups.includes('system:unauthenticated')) throw new Error('who are you?');
      return { allowed: true };
    });
    expect(await failureOf(factory)).toMatch(/who are you\?/);
  });

  it('registers one test per check with a tester', async () => {
    const names: string[] = [];
    await admissionConformance(factoryOf(noPrivileged), {}, { it: (name) => void names.push(name) });
    expect(names).toHaveLength(9);
    expect(names[0]).toBe('admission: builds from its factory with the given options');
  });
});
