import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A real coordination service started for a test (ZooKeeper or etcd), on loopback. */
export interface Service {
  /** host:port clients connect to. */
  addr: string;
  port: number;
  stop(): Promise<void>;
  /** Stop the process but keep its data, so `restart` brings the same state back. */
  kill(): Promise<void>;
  restart(): Promise<void>;
}

function fourLetterWord(port: number, word: string, timeoutMs = 1000): Promise<string> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    let answer = '';
    const done = () => { socket.destroy(); resolve(answer); };
    socket.setTimeout(timeoutMs, done);
    socket.on('connect', () => socket.write(word));
    socket.on('data', (chunk) => { answer += chunk.toString(); });
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
    restart: async () => { await stopProcess(child); child = await launch(); },
    stop: async () => { await stopProcess(child); rmSync(dir, { recursive: true, force: true }); },
  };
}

/** Start a ZooKeeper 3.8 server (Debian package `zookeeper`) on 127.0.0.1:`port`. */
export async function startZooKeeper(port: number): Promise<Service> {
  const dir = mkdtempSync(join(tmpdir(), 'swarm-zk-'));
  const cfg = join(dir, 'zoo.cfg');
  writeFileSync(cfg, [
    'tickTime=2000', `dataDir=${dir}/data`, `clientPort=${port}`, 'clientPortAddress=127.0.0.1',
    'admin.enableServer=false', '4lw.commands.whitelist=ruok,stat', 'maxSessionTimeout=60000', 'minSessionTimeout=2000',
  ].join('\n'));
  const launch = async (): Promise<ChildProcess> => {
    const child = spawn('java', ['-Xmx256m', '-cp', '/usr/share/java/*:/etc/zookeeper/conf', 'org.apache.zookeeper.server.quorum.QuorumPeerMain', cfg], {
      stdio: 'ignore',
      env: { ...process.env, ZOO_LOG_DIR: dir, ZOO_LOG4J_PROP: 'WARN,CONSOLE' },
    });
    await waitFor(async () => (await fourLetterWord(port, 'ruok')) === 'imok', `ZooKeeper on port ${port}`);
    return child;
  };
  return manage(port, dir, launch);
}

/** Start an etcd 3.4 server (Debian package `etcd-server`) on 127.0.0.1:`port` (peer port `port`+1). */
export async function startEtcd(port: number): Promise<Service> {
  const dir = mkdtempSync(join(tmpdir(), 'swarm-etcd-'));
  const client = `http://127.0.0.1:${port}`;
  const launch = async (): Promise<ChildProcess> => {
    const child = spawn('etcd', [
      '--data-dir', `${dir}/data`, '--name', `test${port}`,
      '--listen-client-urls', client, '--advertise-client-urls', client,
      '--listen-peer-urls', `http://127.0.0.1:${port + 1}`,
      '--initial-advertise-peer-urls', `http://127.0.0.1:${port + 1}`,
      '--initial-cluster', `test${port}=http://127.0.0.1:${port + 1}`,
    ], { stdio: 'ignore' });
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
