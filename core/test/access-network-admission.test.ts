import { describe, expect, it } from 'vitest';
import type { AdmissionController, AdmissionRequest } from '@swarm/plugin-sdk/access';
import type { NetworkCreateRequest } from '@swarm/plugin-sdk/docker';
import { testCaller } from '@swarm/plugin-sdk/testing';
import { AccessControl } from '../dist/access/access-control.js';

/*
 * Network creates reach the admission controllers (plugin API 2.2) with the create body in
 * `network`, each controller with its own copy: one that writes into what it is given (a buggy or
 * hostile plugin) changes nothing of what the next one judges, nor of what the engine is sent.
 */

const caller = testCaller('alice', ['team-a']);

describe('network creates through the admission chain', () => {
  it('hands each controller its own copy of the network, which the host keeps as it was', async () => {
    const seen: AdmissionRequest[] = [];
    const writer: AdmissionController = {
      admit: (request) => {
        seen.push(structuredClone(request));
        const network = request.network as NetworkCreateRequest;
        network.Driver = 'macvlan';
        network.Options = { parent: 'eth0' };
        return { allowed: true };
      },
    };
    const reader: AdmissionController = {
      admit: (request) => {
        seen.push(structuredClone(request));
        return request.network?.Driver === 'bridge' ? { allowed: true } : { allowed: false, policy: 'p', rule: 'r', field: 'Driver' };
      },
    };
    const control = new AccessControl({
      authenticators: [],
      authorizers: [],
      admission: [
        { name: 'writer', plugin: writer },
        { name: 'reader', plugin: reader },
      ],
    });
    const network: NetworkCreateRequest = { Name: 'n', Driver: 'bridge', Labels: { 'com.docker.swarm.owner': 'alice' } };
    await control.admit({ caller, action: 'network.create', config: { Image: '' }, network });
    expect(network).toEqual({ Name: 'n', Driver: 'bridge', Labels: { 'com.docker.swarm.owner': 'alice' } });
    expect(seen.map((request) => [request.action, request.network?.Driver, request.config])).toEqual([
      ['network.create', 'bridge', { Image: '' }],
      ['network.create', 'bridge', { Image: '' }],
    ]);
  });

  it('refuses in the words of the controller, naming the network field', async () => {
    const control = new AccessControl({
      authenticators: [],
      authorizers: [],
      admission: [
        {
          name: 'policy',
          plugin: {
            admit: () => ({
              allowed: false,
              policy: 'baseline',
              rule: 'network-options',
              field: 'Options.parent',
              detail: ': a host interface',
            }),
          },
        },
      ],
    });
    const refused = await control
      .admit({ caller, action: 'network.create', config: { Image: '' }, network: { Name: 'n', Options: { parent: 'eth0' } } })
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({
      code: 'SWARM_ERR_PERMISSION_DENIED',
      message: 'admission policy "baseline" forbids Options.parent: a host interface',
    });
  });
});
