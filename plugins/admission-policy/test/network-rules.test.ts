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

const OPERATOR = {
  ...OPTIONS,
  allowedNetworkDrivers: ['weave'],
  allowedIpamDrivers: ['infoblox'],
  allowedSubnets: ['10.200.0.0/16', 'fd00:1::/48'],
};

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

describe('network subnets', () => {
  const ipam = (...config: Record<string, unknown>[]) => ({ IPAM: { Driver: 'default', Config: config } });

  it.each([
    [
      'a subnet',
      ipam({ Subnet: '10.9.0.0/24' }),
      "IPAM.Config[0].Subnet: the engine's host would route 10.9.0.0/24 to the network: no subnet is a tenant's to choose (allowedSubnets)",
    ],
    ['a gateway alone', ipam({ Gateway: '10.9.0.1' }), 'IPAM.Config[0].Gateway: the engine'],
  ])('refuses %s when the operator lists none', (_what, body, expected) => {
    const text = network(CI, body);
    expect(text.startsWith(forbids('baseline', expected)), text).toBe(true);
  });

  it.each([
    [
      "the cloud's metadata address",
      ipam({ Subnet: '169.254.169.0/24' }),
      "IPAM.Config[0].Subnet: the engine's host would route 169.254.169.0/24 to the network: it is outside 10.200.0.0/16, fd00:1::/48",
    ],
    [
      'a wider prefix than the entry',
      ipam({ Subnet: '10.200.0.0/15' }),
      "IPAM.Config[0].Subnet: the engine's host would route 10.200.0.0/15",
    ],
    ['a second pool outside', ipam({ Subnet: '10.200.1.0/24' }, { Subnet: '192.168.1.0/24' }), 'IPAM.Config[1].Subnet'],
    ['a range outside', ipam({ Subnet: '10.200.1.0/24', IPRange: '10.0.0.0/24' }), 'IPAM.Config[0].IPRange'],
    ['a gateway outside', ipam({ Subnet: '10.200.1.0/24', Gateway: '10.0.0.1' }), 'IPAM.Config[0].Gateway'],
    [
      'a gateway with a zone',
      ipam({ Subnet: '10.200.1.0/24', Gateway: 'fd00:1::1%eth0' }),
      'IPAM.Config[0].Gateway: fd00:1::1%eth0 is not an address',
    ],
    [
      'an auxiliary address outside',
      ipam({ Subnet: '10.200.1.0/24', AuxiliaryAddresses: { 'my.host': '10.0.0.2' } }),
      'IPAM.Config[0].AuxiliaryAddresses["my.host"]',
    ],
    ['an IPv4-mapped IPv6 prefix', ipam({ Subnet: '::ffff:10.200.0.0/120' }), 'IPAM.Config[0].Subnet'],
    ['a prefix too long', ipam({ Subnet: '10.200.0.0/33' }), 'IPAM.Config[0].Subnet: 10.200.0.0/33 is not an address prefix'],
    ['a prefix with a zone', ipam({ Subnet: 'fd00:1::%eth0/64' }), 'IPAM.Config[0].Subnet: fd00:1::%eth0/64 is not an address prefix'],
    ['a subnet of another type', ipam({ Subnet: 167772160 }), 'IPAM.Config[0].Subnet: expected a string'],
    ['a config that is not a list', { IPAM: { Config: { Subnet: '10.200.0.0/24' } } }, 'IPAM.Config: expected a list of objects'],
  ])('refuses %s outside allowedSubnets', (_what, body, expected) => {
    const text = network(CI, body, OPERATOR);
    expect(text.startsWith(forbids('baseline', expected)), text).toBe(true);
  });

  it('allows subnets, ranges, gateways and auxiliary addresses under allowedSubnets, at both levels', () => {
    const body = {
      Internal: true,
      EnableIPv6: true,
      ...ipam(
        { Subnet: '10.200.9.0/24', IPRange: '10.200.9.128/25', Gateway: '10.200.9.1', AuxiliaryAddresses: { router: '10.200.9.2' } },
        { Subnet: 'fd00:1:0:9::/64', Gateway: 'fd00:1:0:9::1' },
      ),
    };
    expect(network(CI, body, OPERATOR)).toBe('allowed');
    expect(network(ALICE, body, OPERATOR)).toBe('allowed');
  });

  it('allows an IPv4 prefix exactly when every address of it is under 10.200.0.0/16', () => {
    const octet = fc.integer({ min: 0, max: 255 });
    fc.assert(
      fc.property(fc.tuple(octet, octet, octet, octet), fc.integer({ min: 0, max: 32 }), ([a, b, c, d], prefix) => {
        const inside = prefix >= 16 && a === 10 && b === 200;
        const text = network(CI, ipam({ Subnet: `${a}.${b}.${c}.${d}/${prefix}` }), OPERATOR);
        expect(text === 'allowed', `${a}.${b}.${c}.${d}/${prefix}: ${text}`).toBe(inside);
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
    expect(() => controller({ allowedSubnets: ['10.0.0.0'] })).toThrow(/allowedSubnets\[0\] must be a CIDR prefix/);
    expect(() => controller({ allowedSubnets: ['10.0.0.0/8', 'fd00::/129'] })).toThrow(/allowedSubnets\[1\]/);
  });
});
