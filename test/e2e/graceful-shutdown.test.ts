import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestbed, type Testbed } from '../harness/engines.js';
import { startManager, type Manager } from '../harness/manager.js';
import { docker } from '../mesos-double/swarm-cli.js';

// SIGTERM to `swarm manage`: it takes no new connection, lets requests in flight finish within
// --shutdown-timeout, and ends the streams that never end by themselves (logs -f, events, attach)
// where the client sees a complete stream. Engine 201 and ports 26318-26319 belong to this file.
const PORT = 26318;
const BOUND_PORT = 26319;
let testbed: Testbed;
const exec = promisify(execFile);

/** `docker rm -f` straight on the engine, whatever became of the manager. */
const removeOnEngine = (...names: string[]) =>
  exec('docker', ['-H', `tcp://${testbed.engines[0]!.host}:${testbed.engines[0]!.port}`, 'rm', '-f', ...names]).catch(() => undefined);

interface Running {
  child: ChildProcess;
  exit: Promise<number | null>;
  output: () => string;
}

function dockerChild(port: number, ...args: string[]): Running {
  const child = spawn('docker', ['-H', `tcp://127.0.0.1:${port}`, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, exit, output: () => output };
}

/** The manager's exit code once it has stopped, and how long after `since` that was. */
function exited(manager: Manager, since: number): Promise<{ code: number | null; afterMs: number }> {
  return new Promise((resolve) => {
    const poll = setInterval(() => {
      if (manager.running()) return;
      clearInterval(poll);
      resolve({ code: manager.exitCode(), afterMs: Date.now() - since });
    }, 20);
  });
}

/** A raw `POST /attach` with Upgrade, as dockerode does; resolves with the bytes after the 101 head once the manager ends the stream. */
function rawAttach(port: number, container: string): Promise<{ socket: Socket; body: Promise<{ bytes: Buffer; error?: Error }> }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('error', reject);
    socket.once('connect', () => {
      socket.write(
        `POST /v1.41/containers/${container}/attach?stream=1&stdout=1&stderr=1 HTTP/1.1\r\nHost: swarm\r\nConnection: Upgrade\r\nUpgrade: tcp\r\nContent-Length: 0\r\n\r\n`,
      );
      const chunks: Buffer[] = [];
      const body = new Promise<{ bytes: Buffer; error?: Error }>((done) => {
        socket.on('data', (chunk: Buffer) => chunks.push(chunk));
        socket.once('end', () => done({ bytes: Buffer.concat(chunks) }));
        socket.once('error', (error) => done({ bytes: Buffer.concat(chunks), error }));
      });
      resolve({ socket, body });
    });
  });
}

/** Docker's multiplexed frames: the payloads, and whether the stream ended on a frame boundary. */
function frames(stream: Buffer): { payload: string; complete: boolean } {
  let offset = 0;
  let payload = '';
  while (offset + 8 <= stream.length) {
    const size = stream.readUInt32BE(offset + 4);
    if (offset + 8 + size > stream.length) return { payload, complete: false };
    payload += stream.subarray(offset + 8, offset + 8 + size).toString();
    offset += 8 + size;
  }
  return { payload, complete: offset === stream.length };
}

function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}

beforeAll(async () => {
  testbed = await startTestbed({ first: 201, count: 1 });
});

afterAll(async () => {
  await testbed?.stop();
});

describe('swarm manage on SIGTERM', () => {
  it('refuses new connections, finishes what is in flight and ends logs -f, events and attach cleanly', async () => {
    const engine = `${testbed.engines[0]!.host}:${testbed.engines[0]!.port}`;
    const manager = await startManager({ discovery: engine, port: PORT, expectNodes: 1, args: ['--shutdown-timeout', '10s'] });
    try {
      const ticker = ['sh', '-c', 'while true; do echo tick; sleep 0.05; done'];
      expect((await docker(PORT, 'run', '-d', '--name', 'talker', 'busybox:local', ...ticker)).code).toBe(0);
      // PID 1 ignores SIGTERM: docker stop -t 3 takes its 3 s
      expect((await docker(PORT, 'run', '-d', '--name', 'slowpoke', 'busybox:local', 'sleep', '600')).code).toBe(0);
      const logs = dockerChild(PORT, 'logs', '-f', 'talker');
      const events = dockerChild(PORT, 'events', '--filter', 'container=slowpoke');
      const attach = await rawAttach(PORT, 'talker');
      const stop = dockerChild(PORT, 'stop', '-t', '3', 'slowpoke');
      await new Promise((resolve) => setTimeout(resolve, 1000));

      const signalled = Date.now();
      process.kill(manager.pid, 'SIGTERM');
      const stopped = exited(manager, signalled);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await refused(PORT)).toBe(true);

      // the streams end at once, each complete
      const logsCode = await logs.exit;
      expect(logsCode, logs.output()).toBe(0);
      expect(logs.output().length).toBeGreaterThan(0);
      expect(
        logs
          .output()
          .split('\n')
          .filter(Boolean)
          .every((line) => line === 'tick'),
      ).toBe(true);
      expect(await events.exit, events.output()).toBe(0);
      const attached = await attach.body;
      expect(attached.error).toBeUndefined();
      const afterHead = attached.bytes.subarray(attached.bytes.indexOf('\r\n\r\n') + 4);
      expect(attached.bytes.toString('latin1', 0, 12)).toBe('HTTP/1.1 101');
      const parsed = frames(afterHead);
      expect(parsed.complete).toBe(true);
      expect(parsed.payload).toMatch(/^(tick\n)+$/);

      // the request in flight finishes (its 3 s), then the manager exits 0
      expect(await stop.exit, stop.output()).toBe(0);
      expect(stop.output().trim()).toBe('slowpoke');
      const { code, afterMs } = await stopped;
      expect(code, manager.output()).toBe(0);
      expect(afterMs).toBeGreaterThanOrEqual(2000);
      expect(afterMs).toBeLessThan(10_000);
      expect(manager.output()).not.toContain('still in flight');
    } finally {
      await manager.stop();
      await removeOnEngine('talker', 'slowpoke');
    }
  });

  it('closes what is still in flight at --shutdown-timeout and says so', async () => {
    const engine = `${testbed.engines[0]!.host}:${testbed.engines[0]!.port}`;
    const manager = await startManager({ discovery: engine, port: BOUND_PORT, expectNodes: 1, args: ['--shutdown-timeout', '1s'] });
    try {
      expect((await docker(BOUND_PORT, 'run', '-d', '--name', 'forever', 'busybox:local', 'sleep', '600')).code).toBe(0);
      const wait = dockerChild(BOUND_PORT, 'wait', 'forever');
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const signalled = Date.now();
      process.kill(manager.pid, 'SIGTERM');
      const { code, afterMs } = await exited(manager, signalled);
      expect(code).toBe(0);
      expect(afterMs).toBeGreaterThanOrEqual(900);
      expect(afterMs).toBeLessThan(4000);
      expect(manager.output()).toContain('requests still in flight at the shutdown timeout');
      expect(await wait.exit).not.toBe(0);
    } finally {
      await manager.stop();
      await removeOnEngine('forever');
    }
  });
});
