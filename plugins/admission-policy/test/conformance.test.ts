import { describe, expect, it } from 'vitest';
import { Tokens } from '@swarm/plugin-sdk';
import type { AdmissionFactory } from '@swarm/plugin-sdk/access';
import { admissionConformance, pluginProviders } from '@swarm/plugin-sdk/testing';
import plugin from '@swarm/admission-policy';
import { ALICE, CI, OPTIONS, RESTRICTED_OK, ROOT, create } from './support.js';

const providers = pluginProviders(plugin);
const factory = providers.get<AdmissionFactory>(Tokens.AdmissionController, 'policy');

describe('admission "policy" conformance', () => {
  admissionConformance(
    factory,
    {
      name: 'policy',
      options: OPTIONS,
      allows: [
        { caller: CI, config: create({ Binds: ['/data/x:/x:ro'] }) },
        { caller: ALICE, config: create(RESTRICTED_OK, { User: '1000' }) },
        { caller: ROOT, config: create({ Privileged: true }) },
        { caller: CI, action: 'network.create', config: { Image: '' }, network: { Name: 'n', Driver: 'bridge' } },
      ],
      refuses: [
        { config: create({ Privileged: true }) },
        { caller: ALICE, config: create({}) },
        { caller: CI, config: create({ Sysctls: { 'kernel.msgmax': '1' } }) },
        { caller: CI, config: create({ Binds: ['/data/x:/x'] }) },
        { caller: ALICE, action: 'container.update', config: { Image: '', Memory: -1 } },
        { caller: CI, action: 'network.create', config: { Image: '' }, network: { Name: 'n', Options: { parent: 'eth0' } } },
      ],
      invalidOptions: [{ default: 'strict' }, { bindings: [{ level: 'baseline' }] }, { allowedHostPaths: ['data'] }, { unknown: true }],
    },
    { it },
  );

  it('registers the admission controller "policy", a factory', () => {
    expect(providers.names(Tokens.AdmissionController)).toEqual(['policy']);
    expect(typeof factory).toBe('function');
    expect(plugin.apiVersion).toBe('^2.1.0');
  });
});
