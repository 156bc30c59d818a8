import { describe, expect, it } from 'vitest';
import { insecureBindWarning } from '../dist/api/insecure-bind.js';
import { parseListenAddress } from '../dist/api/listeners.js';

const targets = (...hosts: string[]) => hosts.map(parseListenAddress);

describe("dockerd's insecure-bind warning", () => {
  it('is said for a TCP address others can reach, with neither --tlsverify nor an authorizer', () => {
    expect(insecureBindWarning(targets('tcp://0.0.0.0:2375'), false, false)).toMatch(
      /^Binding to IP address without --tlsverify is insecure/,
    );
    expect(insecureBindWarning(targets('tcp://10.0.0.5:2375', 'unix:///run/swarm.sock'), false, false)).toBeDefined();
  });

  it('is not said for loopback and Unix sockets, nor with --tlsverify or an authorizer', () => {
    expect(
      insecureBindWarning(targets('tcp://127.0.0.1:2375', 'tcp://[::1]:2375', 'unix:///run/swarm.sock'), false, false),
    ).toBeUndefined();
    expect(insecureBindWarning(targets('tcp://0.0.0.0:2376'), true, false)).toBeUndefined();
    expect(insecureBindWarning(targets('tcp://0.0.0.0:2375'), false, true)).toBeUndefined();
  });
});
