import { describe, expect, it } from 'vitest';
import * as bodies from '../src/api/validation/engine-bodies.js';
import { parseGoJson } from '../src/api/validation/go-json.js';
import { decodeGo, type GoType } from '../src/api/validation/go-types.js';

/** A small seeded generator (mulberry32), so a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** What `docker run` sends, with every nested kind the bodies know. */
const FULL_BODY = {
  Hostname: 'h',
  Image: 'busybox',
  Cmd: ['true'],
  Entrypoint: 'sh',
  Env: ['A=1'],
  Labels: { a: 'b', c: null },
  ExposedPorts: { '80/tcp': {} },
  Volumes: { '/data': {} },
  StopTimeout: 10,
  Healthcheck: { Test: ['CMD', 'true'], Interval: 1, Retries: 3 },
  HostConfig: {
    Binds: ['/a:/b'],
    NetworkMode: 'default',
    PortBindings: { '80/tcp': [{ HostIp: '', HostPort: '8080' }] },
    RestartPolicy: { Name: 'no', MaximumRetryCount: 0 },
    LogConfig: { Type: '', Config: { k: 'v' } },
    CapAdd: ['NET_ADMIN'],
    Memory: 1024,
    BlkioWeight: 10,
    Devices: [{ PathOnHost: '/dev/x', PathInContainer: '/dev/x', CgroupPermissions: 'rwm' }],
    Ulimits: [{ Name: 'nofile', Hard: 10, Soft: 5 }],
    Mounts: [
      {
        Type: 'volume',
        Source: 'v',
        Target: '/v',
        ReadOnly: false,
        VolumeOptions: { NoCopy: true, Labels: { x: 'y' }, DriverConfig: { Name: 'local', Options: { o: 'p' } } },
        TmpfsOptions: { SizeBytes: 1, Mode: 448 },
      },
    ],
    Sysctls: { 'net.ipv4.ip_forward': '1' },
  },
  NetworkingConfig: {
    EndpointsConfig: {
      net: { IPAMConfig: { IPv4Address: '10.0.0.2', LinkLocalIPs: ['fe80::1'] }, Aliases: ['a'], IPPrefixLen: 24, DriverOpts: {} },
    },
  },
  Name: 'x',
  Driver: 'local',
  DriverOpts: { a: 'b' },
  IPAM: { Driver: 'default', Options: {}, Config: [{ Subnet: '10.0.0.0/24', AuxiliaryAddresses: { a: '10.0.0.3' } }] },
  ConfigFrom: { Network: 'n' },
  Container: 'c',
  EndpointConfig: { Aliases: ['b'], Links: ['l'] },
  username: 'u',
  serveraddress: 's',
};

const KEYS = [
  '__proto__',
  'constructor',
  '0',
  '1',
  'x',
  ...new Set(
    JSON.stringify(FULL_BODY)
      .match(/"[^"]+":/g)!
      .map((key) => key.slice(1, -2)),
  ),
];

function anyValue(next: () => number, depth: number): unknown {
  const pick = Math.floor(next() * 13);
  switch (pick) {
    case 0:
      return null;
    case 1:
      return next() < 0.5;
    case 2:
      return Math.floor(next() * 2000) - 1000;
    case 3:
      return (next() - 0.5) * 1e3;
    case 4:
      return [2 ** 53, -(2 ** 53), 2 ** 63, -0, 1e300, 9007199254740991][Math.floor(next() * 6)];
    case 5:
    case 6:
      return ['', 'a', '80/tcp', 'true'][Math.floor(next() * 4)];
    case 7:
    case 8:
      return depth > 3 ? 'leaf' : Array.from({ length: Math.floor(next() * 4) }, () => anyValue(next, depth + 1));
    default: {
      if (depth > 3) return {};
      const entries = Array.from({ length: Math.floor(next() * 5) }, () => [
        KEYS[Math.floor(next() * KEYS.length)]!,
        anyValue(next, depth + 1),
      ]);
      // Through JSON.parse, as a request body is read: `__proto__` becomes an own key there.
      return JSON.parse(`{${entries.map(([key, value]) => `${JSON.stringify(key)}:${JSON.stringify(value) ?? 'null'}`).join(',')}}`);
    }
  }
}

/** FULL_BODY with one value somewhere inside it replaced by any JSON value. */
function mutated(next: () => number): unknown {
  const body = JSON.parse(JSON.stringify(FULL_BODY)) as Record<string, unknown>;
  let parent: Record<string | number, unknown> = body;
  for (;;) {
    const keys = Object.keys(parent);
    if (keys.length === 0) break;
    const key = keys[Math.floor(next() * keys.length)]!;
    const child = parent[key];
    if (typeof child === 'object' && child !== null && next() < 0.7) {
      parent = child as Record<string, unknown>;
      continue;
    }
    parent[key] = anyValue(next, 2);
    break;
  }
  return body;
}

const TYPES = Object.entries(bodies).filter((entry): entry is [string, GoType] => entry[0].endsWith('Body'));

describe('the Engine API bodies as swarm sends them decode to themselves (go-types.ts)', () => {
  it('answers a decoded form that decodes to itself, unchanged through JSON, for 30,000 seeded bodies of every kind', () => {
    expect(TYPES.map(([name]) => name).sort()).toEqual([
      'authBody',
      'containerCreateBody',
      'containerUpdateBody',
      'execCreateBody',
      'networkAttachBody',
      'networkCreateBody',
      'volumeCreateBody',
    ]);
    const next = random(34);
    let refused = 0;
    for (let round = 0; round < 5_000; round++) {
      const body = round % 3 === 0 ? anyValue(next, 0) : mutated(next);
      for (const [name, type] of TYPES) {
        const first = decodeGo(type, body);
        if (first.found) {
          refused++;
          expect(first.found.kind).toMatch(/^(null|array|object|string|bool|number( \S+)?)$/);
          continue;
        }
        // What the engine gets is JSON text: read back as dockerd reads it, it is the same value, with nothing to refuse.
        const sent = JSON.stringify(first.value);
        const again = decodeGo(type, parseGoJson(sent));
        if (again.found || JSON.stringify(again.value) !== sent)
          expect({ name, body, again }).toEqual({ name, body, again: { value: first.value } });
      }
    }
    // The bodies reach both outcomes often, so the property is not only of accepted bodies.
    expect(refused).toBeGreaterThan(5_000);
    expect(refused).toBeLessThan(30_000);
  });

  it('reads JSON text as JSON.parse does, whatever it holds', () => {
    const next = random(7);
    for (let round = 0; round < 3_000; round++) {
      const text = JSON.stringify(anyValue(next, 0));
      expect(parseGoJson(text)).toEqual(JSON.parse(text));
    }
    for (const text of ['{"a":1,}', '[1 2]', '01', '{"a"}', '"\\x"', 'nul', '{} x', '']) {
      expect(() => parseGoJson(text), text).toThrow(SyntaxError);
    }
  });
});
