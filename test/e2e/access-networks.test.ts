import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliResult } from './api-support.js';
import { accessConfig, startAccessCluster, type AccessCluster, type Person } from './access-support.js';
import { itJudgedEveryEngineRequest } from './access-invariant.js';

/*
 * Network creates go through admission (issue 42 item 3), with the real docker CLI: at baseline
 * (alice) a driver or driver option that reaches the engine's host is refused, naming the field,
 * and nothing is created; a plain network and what docker compose sends are created; at
 * restricted (bob) no driver options; the admins are privileged.
 *
 * Engines 168-169; manager on 29090.
 */

const PORT = 29090;
let cluster: AccessCluster;

/** access-support's config, with a range of subnets tenants may choose. */
function withSubnets(): Record<string, unknown> {
  const config = accessConfig(undefined);
  const access = config.access as { admission: [string, Record<string, unknown>][] };
  const [[name, options]] = access.admission;
  access.admission = [[name, { ...options, allowedSubnets: ['10.231.0.0/16'] }]];
  return config;
}

/** Names of the networks the cases made or tried to make, and whether each should exist. */
const expected = new Map<string, boolean>();
let counter = 0;

/** `docker network create` as a person with `flags`, under a name of its own; records whether it should exist. */
async function create(person: Person, flags: string[], allowed: boolean): Promise<CliResult> {
  const name = `anet-${person}-${++counter}`;
  expected.set(name, allowed);
  return cluster.as(person, ['network', 'create', ...flags, name]);
}

const forbids = (level: string, field: string) => `Error response from daemon: admission policy "${level}" forbids ${field}`;

beforeAll(async () => {
  cluster = await startAccessCluster({ firstEngine: 168, engines: 2, port: PORT, recordEngines: true, config: withSubnets });
}, 180_000);

afterAll(async () => {
  await cluster?.stop();
});

// [who, what, flags, the refusal's text after `forbids `]
const REFUSED: ReadonlyArray<readonly [Person, string, string[], string, string]> = [
  [
    'alice',
    'a macvlan on a host interface',
    ['-d', 'macvlan', '-o', 'parent=lo'],
    'baseline',
    "Driver: macvlan attaches containers to the interfaces of the engine's host",
  ],
  ['alice', 'an ipvlan', ['-d', 'ipvlan', '-o', 'parent=lo'], 'baseline', 'Driver: ipvlan'],
  ['alice', 'a parent on a bridge', ['-o', 'parent=lo'], 'baseline', "Options.parent: names the interface of the engine's host"],
  [
    'alice',
    "the engine's default bridge",
    ['-o', 'com.docker.network.bridge.name=docker0'],
    'baseline',
    'Options["com.docker.network.bridge.name"]: names the Linux bridge on the engine\'s host',
  ],
  [
    'alice',
    'a host binding address',
    ['-o', 'com.docker.network.bridge.host_binding_ipv4=127.0.0.1'],
    'baseline',
    'Options["com.docker.network.bridge.host_binding_ipv4"]',
  ],
  [
    'alice',
    'masquerading turned off',
    ['-o', 'com.docker.network.bridge.enable_ip_masquerade=false'],
    'baseline',
    'Options["com.docker.network.bridge.enable_ip_masquerade"]',
  ],
  ['alice', 'an IPAM plugin', ['--ipam-driver', 'infoblox'], 'baseline', "IPAM.Driver: infoblox is an IPAM plugin on the engine's host"],
  [
    'alice',
    'a network driver plugin',
    ['-d', 'weaveworks/net-plugin'],
    'baseline',
    'Driver: weaveworks/net-plugin is not a network driver',
  ],
  ['alice', 'a config-only network', ['--config-only', '-o', 'parent=lo'], 'baseline', 'Options.parent'],
  ['alice', "a network from another's config", ['--config-from', 'operators-config'], 'baseline', 'ConfigFrom.Network'],
  [
    'alice',
    "a subnet over the cloud's metadata address",
    ['--subnet', '169.254.169.0/24'],
    'baseline',
    "IPAM.Config[0].Subnet: the engine's host would route 169.254.169.0/24 to the network: it is outside 10.231.0.0/16",
  ],
  [
    'bob',
    'a driver option (restricted)',
    ['-o', 'com.docker.network.driver.mtu=1400'],
    'restricted',
    'Options["com.docker.network.driver.mtu"]: restricted allows no network driver options',
  ],
];

describe('network creates refused, naming the field', () => {
  it.each(REFUSED)('%s: %s', async (person, _what, flags, level, field) => {
    const result = await create(person, flags, false);
    expect(result.code, result.stdout).not.toBe(0);
    expect(result.stderr.trim().startsWith(forbids(level, field)), result.stderr).toBe(true);
  });
});

describe('network creates allowed', () => {
  it.each([
    ['alice', 'a plain network', []],
    [
      'alice',
      'options that change only its containers',
      ['-o', 'com.docker.network.driver.mtu=1400', '-o', 'com.docker.network.bridge.enable_icc=false'],
    ],
    ['alice', 'an internal network with a subnet', ['--internal', '--subnet', '10.231.0.0/24', '--gateway', '10.231.0.1']],
    ['alice', 'compose-style labels', ['--label', 'com.docker.compose.project=anet', '--label', 'com.docker.compose.network=default']],
    ['bob', 'a plain network (restricted)', []],
    ['admin', 'masquerading turned off (privileged)', ['-o', 'com.docker.network.bridge.enable_ip_masquerade=false']],
  ] as const)('%s: %s', async (person, _what, flags) => {
    const result = await create(person, [...flags], true);
    expect(result.code, result.stderr).toBe(0);
  });

  it('what docker compose sends for a project network (null options and IPAM fields)', async () => {
    const name = 'anet_default';
    expected.set(name, true);
    const body = {
      Name: name,
      Driver: 'bridge',
      Labels: { 'com.docker.compose.network': 'default', 'com.docker.compose.project': 'anet', 'com.docker.compose.version': '2.29.7' },
      Options: null,
      IPAM: { Driver: '', Options: null, Config: null },
      Internal: false,
      Attachable: false,
      EnableIPv6: false,
      CheckDuplicate: true,
    };
    const answer = await cluster.call('alice', 'POST', '/v1.41/networks/create', body);
    expect(answer.status, answer.text).toBe(201);
  });

  it('an auxiliary address outside the allowed subnets is refused (the docker CLI checks it, a raw client need not)', async () => {
    const name = `anet-alice-${++counter}`;
    expected.set(name, false);
    const IPAM = { Config: [{ Subnet: '10.231.2.0/24', AuxiliaryAddresses: { metadata: '169.254.169.254' } }] };
    const answer = await cluster.call('alice', 'POST', '/v1.41/networks/create', { Name: name, IPAM });
    expect(answer.status, answer.text).toBe(403);
    expect(JSON.parse(answer.text).message).toMatch(/^admission policy "baseline" forbids IPAM.Config\[0\].AuxiliaryAddresses.metadata: /);
  });

  it('re-cased fields are judged as the engine reads them', async () => {
    const name = `anet-alice-${++counter}`;
    expected.set(name, false);
    const answer = await cluster.call('alice', 'POST', '/v1.41/networks/create', { name, driver: 'macvlan', options: { parent: 'lo' } });
    expect(answer.status, answer.text).toBe(403);
    expect(JSON.parse(answer.text).message).toMatch(/^admission policy "baseline" forbids Driver: macvlan/);
  });
});

describe('what the refusals left behind', () => {
  it('every refused create made nothing, every allowed one a network', async () => {
    const listed = await cluster.as('admin', ['network', 'ls', '--filter', 'name=anet', '--format', '{{.Name}}']);
    expect(listed.code, listed.stderr).toBe(0);
    const names = new Set(listed.stdout.split('\n').map((name) => name.trim().replace(/^[^/]+\//, '')));
    const wrong = [...expected]
      .filter(([name, should]) => names.has(name) !== should)
      .map(([name, should]) => `${name}: ${should ? 'missing' : 'created'}`);
    expect(wrong).toEqual([]);
  });
});

itJudgedEveryEngineRequest('access-networks', () => cluster);
