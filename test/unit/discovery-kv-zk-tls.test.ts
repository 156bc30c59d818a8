import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Discovery } from '@swarm/plugin-sdk';
import { LEADER_ELECTION_PATH } from '@swarm/plugin-sdk/helpers';
import { ZkDiscoveryBackend } from '@swarm/discovery-zk';
import type { TestCertificates } from '../mesos-double/certificates.js';
import { makeZooKeeperTlsFiles, startZooKeeper, type Service } from '../harness/services.js';
import { eventually, WatchLog, zkStore } from './discovery-kv-fixtures.js';

// ZooKeeper on 23630 (plain) and 23631 (TLS), nothing on 23639: ports no other file uses.
const PORT = 23630;
const SECURE_PORT = 23631;
const run = promisify(execFile);

describe('zk:// with kv.cacertfile, kv.certfile and kv.keyfile (ZooKeeper secureClientPort, client certificates)', () => {
  let dir: string;
  let certs: TestCertificates;
  let strangerCa: string;
  let zk: Service;
  const opened: Discovery[] = [];
  const backend = new ZkDiscoveryBackend();
  const tlsOptions = (ca = certs.ca) => ({ 'kv.cacertfile': ca, 'kv.certfile': certs.clientCert, 'kv.keyfile': certs.clientKey });
  const open = (addr: string, prefix: string, options: Record<string, string>) => {
    const discovery = backend.open(`${addr}/${prefix}`, { heartbeat: 1, ttl: 10, options });
    opened.push(discovery);
    return discovery;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'swarm-zk-tls-'));
    let keyAndCert: string;
    ({ certs, keyAndCertFile: keyAndCert, strangerCa } = await makeZooKeeperTlsFiles(dir));
    zk = await startZooKeeper(PORT, { securePort: SECURE_PORT, keyAndCertFile: keyAndCert, caFile: certs.ca });
  }, 120_000);

  afterAll(async () => {
    await Promise.all(opened.map((discovery) => discovery.close()));
    await zk?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('registers and watches over TLS; the entry is the one the server holds', async () => {
    await open(zk.secureAddr!, 'tls', tlsOptions()).register('127.0.0.71:2375');
    const log = new WatchLog();
    open(zk.secureAddr!, 'tls', tlsOptions()).watch(log.onEntries, log.onError);
    await eventually(() => log.sees(['127.0.0.71:2375']), 'the entry over TLS');
    expect(await zkStore.list(zk, 'tls/docker/swarm/nodes')).toEqual({ 'tls/docker/swarm/nodes/127.0.0.71:2375': '127.0.0.71:2375' });
  });

  it('elects a leader over TLS and a follower over TLS sees it', async () => {
    const election = open(zk.secureAddr!, 'tls-election', tlsOptions()).leadership!(LEADER_ELECTION_PATH, 5);
    const events: string[] = [];
    const campaign = election.campaign('127.0.0.1:23632', { onElected: () => events.push('elected'), onLost: () => events.push('lost') });
    const seen: Array<string | undefined> = [];
    election.follow(
      (leader) => seen.push(leader),
      () => undefined,
    );
    await eventually(() => campaign.isLeader(), 'the candidate to lead over TLS');
    await eventually(() => seen.at(-1) === '127.0.0.1:23632', 'the follower to see the leader');
    await campaign.resign();
    await eventually(() => seen.at(-1) === undefined, 'the follower to see the lock released');
    expect(events).toEqual(['elected']);
  });

  it('reports a wrong CA as a TLS error naming the store and the kv.* options, never entries', async () => {
    const log = new WatchLog();
    open(zk.secureAddr!, 'tls', tlsOptions(strangerCa)).watch(log.onEntries, log.onError);
    await eventually(() => log.errors.length > 0, 'an error report', 15_000);
    console.log(`wrong CA: ${log.errors[0]!.message}`);
    expect(log.errors[0]!.message).toMatch(
      new RegExp(
        `^zk: TLS to ZooKeeper at 127\\.0\\.0\\.1:${SECURE_PORT} failed: .*(certificate|issuer).* \\(check kv\\.cacertfile, kv\\.certfile and kv\\.keyfile\\)$`,
      ),
    );
    expect(log.sets).toEqual([]);
  });

  it('reports an error (never entries) when TLS options point at the plain port', async () => {
    const log = new WatchLog();
    open(zk.addr, 'tls', tlsOptions()).watch(log.onEntries, log.onError);
    await eventually(() => log.errors.length > 0, 'an error report', 15_000);
    expect(log.errors[0]!.message).toContain(`zk: TLS to ZooKeeper at ${zk.addr} failed`);
    expect(log.sets).toEqual([]);
  });

  it('reports a store that does not listen as unreachable, not as a certificate problem', async () => {
    const log = new WatchLog();
    open('127.0.0.1:23639', 'tls', tlsOptions()).watch(log.onEntries, log.onError);
    await eventually(() => log.errors.length > 0, 'an error report', 15_000);
    expect(log.errors[0]!.message).toBe('zk: cannot reach ZooKeeper at 127.0.0.1:23639 (TLS): connect ECONNREFUSED 127.0.0.1:23639');
    expect(log.sets).toEqual([]);
  });

  it('serves only this process: another process dialling the loopback bridge gets no ZooKeeper session', async () => {
    const log = new WatchLog();
    open(zk.secureAddr!, 'tls', tlsOptions()).watch(log.onEntries, log.onError);
    await eventually(() => log.sets.length > 0, 'a watch through the bridge');
    const { stdout } = await run('ss', ['-ltnpH']);
    const bridgePorts = stdout
      .split('\n')
      .filter((line) => line.includes(`pid=${process.pid},`))
      .map((line) => Number(/127\.0\.0\.1:(\d+)/.exec(line)?.[1]));
    expect(bridgePorts.length).toBeGreaterThan(0);
    for (const port of bridgePorts) {
      // A ZooKeeper ConnectRequest (protocol 0, timeout 4000 ms, no session); a bridge that forwarded it would get a ConnectResponse.
      const request = Buffer.alloc(48);
      request.writeInt32BE(44, 0);
      request.writeInt32BE(4000, 16);
      request.writeInt32BE(16, 28);
      const probe = spawn(
        process.execPath,
        [
          '-e',
          `
        const socket = require('node:net').connect(${port}, '127.0.0.1', () => socket.write(Buffer.from('${request.toString('hex')}', 'hex')));
        let bytes = 0;
        socket.on('data', (chunk) => { bytes += chunk.length; });
        socket.on('error', () => undefined);
        socket.on('close', () => { console.log(bytes); process.exit(0); });
        setTimeout(() => { console.log('open ' + bytes); process.exit(0); }, 5000);
      `,
        ],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      );
      const answer = await new Promise<string>((resolve) => {
        let out = '';
        probe.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
        probe.on('exit', () => resolve(out.trim()));
      });
      expect(answer).toBe('0');
    }
  });
});
