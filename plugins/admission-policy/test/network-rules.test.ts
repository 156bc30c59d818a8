import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Caller } from '@swarm/plugin-sdk/access';
import type { NetworkCreateRequest } from '@swarm/plugin-sdk/docker';
import { ALICE, ANONYMOUS, CI, OPTIONS, ROOT, controller, outcome } from './support.js';

/*
 * `docker network create` (the host's `network.create`, the body as the engine decodes it):
 * baseline allows the engine's bridge and overlay drivers with options that change only the
 * network's own containers, and the default IPAM; restricted (alice, team-a) no driver options.
 */

const OPERATOR = { ...OPTIONS, allowedNetworkDrivers: ['weave'], allowedIpamDrivers: ['infoblox'] };

const CONTROLLERS = new Map([OPTIONS, OPERATOR].map((options) => [options, controller(options)]));

function network(who: Caller, body: Record<string, unknown>, options: typeof OPTIONS = OPTIONS): string {
  const request = { Name: 'n', ...body } as NetworkCreateRequest;
  return outcome(CONTROLLERS.get(options)!.admit({ caller: who, action: 'network.create', config: { Image: '' }, network: request }));
}

const forbids = (level: string, rest: string) => `admission policy "${level}" forbids ${rest}`;

/** What `docker compose up` sends for a project's default network. */
const COMPOSE = {
  Name: 'proj_default',
  Driver: 'bridge',
  Labels: { 'com.docker.compose.network': 'default', 'com.docker.compose.project': 'proj', 'com.docker.compose.version': '2.29.7' },
  Options: null,
  IPAM: { Driver: '', Options: null, Config: null },
  Internal: false,
  Attachable: false,
  EnableIPv6: false,
};

describe('network creates at baseline', () => {
  it.each([
    [
      'macvlan on a host interface',
      { Driver: 'macvlan', Options: { parent: 'eth0' } },
      "Driver: macvlan attaches containers to the interfaces of the engine's host",
    ],
    ['ipvlan', { Driver: 'ipvlan' }, "Driver: ipvlan attaches containers to the interfaces of the engine's host"],
    ['the host driver', { Driver: 'host' }, 'Driver: host is not a network driver of the engine that baseline allows'],
    [
      'a driver plugin',
      { Driver: 'weave' },
      'Driver: weave is not a network driver of the engine that baseline allows (allowed: bridge, overlay and allowedNetworkDrivers)',
    ],
    ['a re-cased driver', { Driver: 'Bridge' }, 'Driver: Bridge is not a network driver'],
    [
      'a parent on a bridge',
      { Options: { parent: 'eth0' } },
      "Options.parent: names the interface of the engine's host the network attaches to",
    ],
    [
      "the engine's default bridge",
      { Driver: 'bridge', Options: { 'com.docker.network.bridge.name': 'docker0' } },
      'Options["com.docker.network.bridge.name"]: names the Linux bridge on the engine\'s host',
    ],
    [
      'a host binding address',
      { Options: { 'com.docker.network.bridge.host_binding_ipv4': '10.0.0.1' } },
      'Options["com.docker.network.bridge.host_binding_ipv4"]: chooses the host addresses',
    ],
    [
      'masquerading turned off',
      { Options: { 'com.docker.network.bridge.enable_ip_masquerade': 'false' } },
      'Options["com.docker.network.bridge.enable_ip_masquerade"]: changes how the host NATs',
    ],
    [
      'routed gateway mode',
      { Options: { 'com.docker.network.bridge.gateway_mode_ipv4': 'routed' } },
      'Options["com.docker.network.bridge.gateway_mode_ipv4"]: changes how the host routes',
    ],
    [
      'trusted host interfaces',
      { Options: { 'com.docker.network.bridge.trusted_host_interfaces': 'eth0' } },
      'Options["com.docker.network.bridge.trusted_host_interfaces"]',
    ],
    [
      'a VXLAN ID',
      { Driver: 'overlay', Options: { 'com.docker.network.driver.overlay.vxlanid_list': '4097' } },
      'Options["com.docker.network.driver.overlay.vxlanid_list"]',
    ],
    ['an option no driver reads', { Options: { foo: 'bar' } }, 'Options.foo: not a bridge option baseline allows'],
    ['an IPAM plugin', { IPAM: { Driver: 'infoblox' } }, "IPAM.Driver: infoblox is an IPAM plugin on the engine's host"],
    ['the ingress network', { Driver: 'overlay', Ingress: true }, "Ingress: the ingress network is swarm mode's routing mesh"],
    ['a config-only network', { ConfigOnly: true, Options: {} }, 'ConfigOnly: a config-only network holds driver options'],
    [
      'a network from a config-only one',
      { ConfigFrom: { Network: 'operators-macvlan' } },
      "ConfigFrom.Network: the network would take another network's driver options",
    ],
    ['a field no API has', { Bogus: 1 }, 'Bogus: not a field of the Engine API'],
    ['options of another type', { Options: ['parent=eth0'] }, 'Options: expected an object of strings'],
    ['a driver of another type', { Driver: ['macvlan'] }, 'Driver: expected a string'],
  ])('refuses %s, named', (_what, body, expected) => {
    const text = network(CI, body);
    expect(text.startsWith(forbids('baseline', expected)), text).toBe(true);
  });

  it.each([
    ['a plain docker network create', {}],
    ['what docker compose sends for a project network', COMPOSE],
    ['an overlay', { Driver: 'overlay', Attachable: true, Options: { encrypted: '' } }],
    [
      'an internal network with IPv6, a subnet and a gateway',
      { Internal: true, EnableIPv6: true, IPAM: { Driver: 'default', Config: [{ Subnet: '10.9.0.0/24', Gateway: '10.9.0.1' }] } },
    ],
    [
      'options that change only its containers',
      {
        Options: {
          'com.docker.network.driver.mtu': '1400',
          'com.docker.network.bridge.enable_icc': 'false',
          'com.docker.network.container_iface_prefix': 'eth',
        },
      },
    ],
    ['a default IPAM option', { IPAM: { Options: { 'com.docker.network.ipam.serial': 'true' } } }],
    ['a null IPAM', { IPAM: null }],
  ])('allows %s', (_what, body) => {
    expect(network(CI, body)).toBe('allowed');
    expect(network(ANONYMOUS, body)).toBe('allowed');
  });

  it("allows the operator's network and IPAM plugins, with the plugin's options", () => {
    expect(network(CI, { Driver: 'weave', Options: { 'works.weave.multicast': 'true' } }, OPERATOR)).toBe('allowed');
    expect(network(CI, { IPAM: { Driver: 'infoblox', Options: { view: 'default' } } }, OPERATOR)).toBe('allowed');
    // listing a plugin does not open the engine's own drivers' host options
    expect(network(CI, { Options: { parent: 'eth0' } }, OPERATOR)).toMatch(/^admission policy "baseline" forbids Options.parent/);
  });

  it('refuses a network option name outside the allow-list, whatever it is', () => {
    const harmless = new Set([
      'com.docker.network.driver.mtu',
      'com.docker.network.container_iface_prefix',
      'com.docker.network.bridge.enable_icc',
      'com.docker.network.enable_ipv4',
      'com.docker.network.enable_ipv6',
      'encrypted',
    ]);
    const key = fc.oneof(
      fc.string({ minLength: 1, maxLength: 12 }),
      fc
        .constantFrom('com.docker.network.bridge.', 'com.docker.network.', 'com.docker.network.driver.', '')
        .chain((prefix) => fc.stringMatching(/^[a-z_.0-9]{1,20}$/).map((rest) => `${prefix}${rest}`)),
    );
    fc.assert(
      fc.property(key, fc.string(), fc.constantFrom('', 'bridge', 'overlay'), (name, value, driver) => {
        const text = network(CI, { Driver: driver, Options: { [name]: value } });
        if (harmless.has(name)) expect(text).toBe('allowed');
        else expect(text.startsWith(forbids('baseline', 'Options')), text).toBe(true);
      }),
      { seed: 42, numRuns: 300 },
    );
  });
});

describe('network creates at restricted', () => {
  it.each([
    [
      'an option that changes only its containers',
      { Options: { 'com.docker.network.driver.mtu': '1400' } },
      'Options["com.docker.network.driver.mtu"]: restricted allows no network driver options',
    ],
    [
      'an IPAM option',
      { IPAM: { Options: { 'com.docker.network.ipam.serial': 'true' } } },
      'IPAM.Options["com.docker.network.ipam.serial"]: restricted allows no IPAM driver options',
    ],
    ['macvlan', { Driver: 'macvlan' }, 'Driver: macvlan'],
    ["an operator's plugin's options", { Driver: 'weave', Options: { x: '1' } }, 'Options.x: restricted allows no network driver options'],
  ])('refuses %s', (_what, body, expected) => {
    const text = network(ALICE, body, OPERATOR);
    expect(text.startsWith(forbids('restricted', expected)), text).toBe(true);
  });

  it('allows a plain network and what docker compose sends', () => {
    expect(network(ALICE, {})).toBe('allowed');
    expect(network(ALICE, COMPOSE)).toBe('allowed');
  });
});

describe('network creates at privileged', () => {
  it('allows everything', () => {
    expect(network(ROOT, { Driver: 'macvlan', Options: { parent: 'eth0' }, ConfigOnly: true })).toBe('allowed');
  });
});

describe('the policy options for networks', () => {
  it('refuses a driver list that is not a list of names', () => {
    expect(() => controller({ allowedNetworkDrivers: 'weave' })).toThrow(/allowedNetworkDrivers/);
    expect(() => controller({ allowedIpamDrivers: [''] })).toThrow(/allowedIpamDrivers\[0\]/);
  });
});
