import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeTestCertificates, type TestCertificates } from '../mesos-double/certificates.js';

/** A real coordination service started for a test (ZooKeeper or etcd), on loopback. */
export interface Service {
  /** host:port clients connect to. */
  addr: string;
  port: number;
  /** host:port of ZooKeeper's TLS port, when started with `tls`. */
  secureAddr?: string;
  stop(): Promise<void>;
  /** Stop the process but keep its data, so `restart` brings the same state back. */
  kill(): Promise<void>;
  restart(): Promise<void>;
}

function fourLetterWord(port: number, word: string, timeoutMs = 1000): Promise<string> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    let answer = '';
    const done = () => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(timeoutMs, done);
    socket.on('connect', () => socket.write(word));
    socket.on('data', (chunk) => {
      answer += chunk.toString();
    });
    socket.on('end', done);
    socket.on('error', done);
  });
}

async function waitFor(check: () => Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${what} did not become ready within ${timeoutMs} ms`);
}

function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

/** Run a launched server as a Service whose data in `dir` survives kill/restart and goes with stop. */
async function manage(port: number, dir: string, launch: () => Promise<ChildProcess>): Promise<Service> {
  let child = await launch();
  return {
    addr: `127.0.0.1:${port}`,
    port,
    kill: () => stopProcess(child),
    restart: async () => {
      await stopProcess(child);
      child = await launch();
    },
    stop: async () => {
      await stopProcess(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** PEM files for ZooKeeper's TLS port; clients must present a certificate signed by `caFile`. */
export interface ZooKeeperTls {
  securePort: number;
  /** The server's private key followed by its certificate, in one PEM file. */
  keyAndCertFile: string;
  caFile: string;
}

export interface ZooKeeperTlsFiles {
  /** CA, server (127.0.0.1) and client certificates. */
  certs: TestCertificates;
  /** The server's key store for `startZooKeeper(..., { keyAndCertFile })`. */
  keyAndCertFile: string;
  /** Another CA, which signed nothing ZooKeeper presents (for wrong-CA cases). */
  strangerCa: string;
}

/** Throw-away certificates for a TLS ZooKeeper, written under `dir`. */
export async function makeZooKeeperTlsFiles(dir: string): Promise<ZooKeeperTlsFiles> {
  const stranger = mkdtempSync(join(dir, 'stranger-'));
  const [certs] = await Promise.all([makeTestCertificates(dir, ['127.0.0.1']), makeTestCertificates(stranger, ['127.0.0.1'])]);
  const keyAndCertFile = join(dir, 'server-keystore.pem');
  writeFileSync(keyAndCertFile, Buffer.concat([readFileSync(certs.serverKey), readFileSync(certs.serverCert)]));
  return { certs, keyAndCertFile, strangerCa: join(stranger, 'ca.pem') };
}

/** ZooKeeper 3.8's TLS port (Netty connection factory, PEM key and trust stores, client certificates required). */
function secureClientConfig(tls: ZooKeeperTls): string[] {
  return [
    `secureClientPort=${tls.securePort}`,
    'secureClientPortAddress=127.0.0.1',
    'serverCnxnFactory=org.apache.zookeeper.server.NettyServerCnxnFactory',
    `ssl.keyStore.location=${tls.keyAndCertFile}`,
    'ssl.keyStore.type=PEM',
    `ssl.trustStore.location=${tls.caFile}`,
    'ssl.trustStore.type=PEM',
    'ssl.clientAuth=need',
  ];
}

/** Start a ZooKeeper 3.8 server (Debian package `zookeeper`) on 127.0.0.1:`port`, with `tls` also on a TLS port. */
export async function startZooKeeper(port: number, tls?: ZooKeeperTls): Promise<Service> {
  const dir = mkdtempSync(join(tmpdir(), 'swarm-zk-'));
  const cfg = join(dir, 'zoo.cfg');
  writeFileSync(
    cfg,
    [
      'tickTime=2000',
      `dataDir=${dir}/data`,
      `clientPort=${port}`,
      'clientPortAddress=127.0.0.1',
      'admin.enableServer=false',
      '4lw.commands.whitelist=ruok,stat',
      'maxSessionTimeout=60000',
      'minSessionTimeout=2000',
      ...(tls === undefined ? [] : secureClientConfig(tls)),
    ].join('\n'),
  );
  const launch = async (): Promise<ChildProcess> => {
    const child = spawn(
      'java',
      ['-Xmx256m', '-cp', '/usr/share/java/*:/etc/zookeeper/conf', 'org.apache.zookeeper.server.quorum.QuorumPeerMain', cfg],
      {
        stdio: 'ignore',
        env: { ...process.env, ZOO_LOG_DIR: dir, ZOO_LOG4J_PROP: 'WARN,CONSOLE' },
      },
    );
    await waitFor(async () => (await fourLetterWord(port, 'ruok')) === 'imok', `ZooKeeper on port ${port}`);
    if (tls !== undefined) await waitFor(() => portOpen(tls.securePort), `ZooKeeper's TLS port ${tls.securePort}`);
    return child;
  };
  const service = await manage(port, dir, launch);
  return tls === undefined ? service : { ...service, secureAddr: `127.0.0.1:${tls.securePort}` };
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

/** Start an etcd 3.4 server (Debian package `etcd-server`) on 127.0.0.1:`port` (peer port `port`+1). */
export async function startEtcd(port: number): Promise<Service> {
  const dir = mkdtempSync(join(tmpdir(), 'swarm-etcd-'));
  const client = `http://127.0.0.1:${port}`;
  const launch = async (): Promise<ChildProcess> => {
    const child = spawn(
      'etcd',
      [
        '--data-dir',
        `${dir}/data`,
        '--name',
        `test${port}`,
        '--listen-client-urls',
        client,
        '--advertise-client-urls',
        client,
        '--listen-peer-urls',
        `http://127.0.0.1:${port + 1}`,
        '--initial-advertise-peer-urls',
        `http://127.0.0.1:${port + 1}`,
        '--initial-cluster',
        `test${port}=http://127.0.0.1:${port + 1}`,
      ],
      { stdio: 'ignore' },
    );
    await waitFor(async () => {
      try {
        const response = await fetch(`${client}/health`);
        return response.ok;
      } catch {
        return false;
      }
    }, `etcd on port ${port}`);
    return child;
  };
  return manage(port, dir, launch);
}
