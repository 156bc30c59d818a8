import { describe, expect, it } from 'vitest';
import { ipFromUint32, leaderEntry, parseMasterInfo } from '../src/master-info.js';
import { parseMasterLocation } from '../src/master-url.js';

describe('MasterInfo', () => {
  it('prefers address.ip and address.port', () => {
    const json = JSON.stringify({
      id: 'm1',
      ip: 16777343,
      port: 5050,
      hostname: 'master1',
      address: { hostname: 'master1', ip: '10.0.0.7', port: 5051 },
    });
    expect(parseMasterInfo(json)).toEqual({ host: '10.0.0.7', port: 5051 });
  });

  it('reads the legacy uint32 ip with the first octet in the lowest byte', () => {
    expect(ipFromUint32(16777343)).toBe('127.0.0.1');
    expect(ipFromUint32(0x0b0a0a0a)).toBe('10.10.10.11');
    expect(parseMasterInfo(JSON.stringify({ ip: 0x0302a8c0, port: 5050, hostname: 'h' }))).toEqual({ host: '192.168.2.3', port: 5050 });
  });

  it('falls back to the hostname and rejects unusable entries', () => {
    expect(parseMasterInfo(JSON.stringify({ hostname: 'mesos.local', port: 5050 }))).toEqual({ host: 'mesos.local', port: 5050 });
    expect(() => parseMasterInfo('not json')).toThrow(/not JSON/);
    expect(() => parseMasterInfo(JSON.stringify({ hostname: 'x' }))).toThrow(/no port/);
  });

  it('picks the lowest json.info_ sequence and skips other children', () => {
    expect(leaderEntry(['log_replicas', 'json.info_0000000012', 'info_0000000001', 'json.info_0000000003'])).toBe('json.info_0000000003');
    expect(leaderEntry(['log_replicas'])).toBeUndefined();
  });
});

describe('master location', () => {
  it('parses zk:// with several servers, a path and digest auth', () => {
    expect(parseMasterLocation('zk://u:p@h1:2181,h2:2181/mesos')).toEqual({
      kind: 'zk',
      servers: 'h1:2181,h2:2181',
      path: '/mesos',
      auth: 'u:p',
    });
    expect(parseMasterLocation('zk://127.0.0.1:2181/a/b/')).toEqual({ kind: 'zk', servers: '127.0.0.1:2181', path: '/a/b' });
  });

  it('parses mesos://host:port and host:port, defaulting the port to 5050', () => {
    expect(parseMasterLocation('mesos://10.1.1.1:5051')).toEqual({ kind: 'direct', host: '10.1.1.1', port: 5051 });
    expect(parseMasterLocation('master.local')).toEqual({ kind: 'direct', host: 'master.local', port: 5050 });
    expect(() => parseMasterLocation('zk://nohostpath')).toThrow(/invalid mesos master address/);
  });
});
