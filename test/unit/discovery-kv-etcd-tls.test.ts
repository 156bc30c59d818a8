import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSwarmError, type Discovery } from '@swarm/plugin-sdk';
import { EtcdDiscoveryBackend } from '@swarm/discovery-etcd';
import { eventually, WatchLog } from './discovery-kv-fixtures.js';
import { localServerAndClient } from '../harness/certificates.js';

const PORT = 23620;

const portOpen = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect({ host: '127.0.0.1', port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });

describe('etcd:// with kv.cacertfile, kv.certfile and kv.keyfile (TLS with client certificates)', () => {
  let dir: string;
  let etcd: ChildProcess;
  const opened: Discovery[] = [];
  const backend = new EtcdDiscoveryBackend();
  const tlsOptions = () => ({
    'kv.cacertfile': join(dir, 'ca.pem'),
    'kv.certfile': join(dir, 'client-cert.pem'),
    'kv.keyfile': join(dir, 'client-key.pem'),
  });
  const open = (options: Record<string, string>) => {
    const discovery = backend.open(`127.0.0.1:${PORT}/tls`, { heartbeat: 1, ttl: 10, options });
    opened.push(discovery);
    return discovery;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'swarm-etcd-tls-'));
    await localServerAndClient(dir);
    const client = `https://127.0.0.1:${PORT}`;
    etcd = spawn(
      'etcd',
      [
        '--data-dir',
        join(dir, 'data'),
        '--name',
        'tls',
        '--listen-client-urls',
        client,
        '--advertise-client-urls',
        client,
        '--listen-peer-urls',
        `http://127.0.0.1:${PORT + 1}`,
        '--initial-advertise-peer-urls',
        `http://127.0.0.1:${PORT + 1}`,
        '--initial-cluster',
        `tls=http://127.0.0.1:${PORT + 1}`,
        '--cert-file',
        join(dir, 'server-cert.pem'),
        '--key-file',
        join(dir, 'server-key.pem'),
        '--trusted-ca-file',
        join(dir, 'ca.pem'),
        '--client-cert-auth',
      ],
      { stdio: 'ignore' },
    );
    await eventually(() => portOpen(PORT), 'etcd to listen', 60_000);
  }, 90_000);

  afterAll(async () => {
    await Promise.all(opened.map((discovery) => discovery.close()));
    if (etcd.exitCode === null)
      await new Promise((resolve) => {
        etcd.once('exit', resolve);
        etcd.kill('SIGKILL');
      });
    rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  it('registers and watches over TLS', async () => {
    await eventually(
      () =>
        open(tlsOptions())
          .register('127.0.0.71:2375')
          .then(
            () => true,
            () => false,
          ),
      'a registration over TLS',
      30_000,
    );
    const log = new WatchLog();
    open(tlsOptions()).watch(log.onEntries, log.onError);
    await eventually(() => log.sees(['127.0.0.71:2375']), 'the entry over TLS');
  }, 60_000);

  it('reports an error (never entries, never a throw) when the client speaks plain HTTP to the TLS store', async () => {
    const log = new WatchLog();
    open({}).watch(log.onEntries, log.onError);
    await eventually(() => log.errors.length > 0, 'an error report');
    expect(log.sets).toEqual([]);
  });

  it('refuses incomplete or unreadable TLS options with DISCOVERY_INVALID', () => {
    const partial = (() => {
      try {
        open({ 'kv.cacertfile': join(dir, 'ca.pem') });
      } catch (error) {
        return error;
      }
    })();
    expect(isSwarmError(partial, 'SWARM_ERR_DISCOVERY_INVALID')).toBe(true);
    expect((partial as Error).message).toContain('kv.cacertfile, kv.certfile and kv.keyfile');
    const missing = (() => {
      try {
        open({ ...tlsOptions(), 'kv.keyfile': join(dir, 'nope.pem') });
      } catch (error) {
        return error;
      }
    })();
    expect((missing as Error).message).toMatch(/cannot read kv\.keyfile .*nope\.pem/);
  });
});
