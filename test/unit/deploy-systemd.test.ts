import { execFile, spawn, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  closeSync,
  copyFileSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { makeCertificates } from '../harness/certificates.js';

// The systemd units in core/deploy/systemd: what `systemd-analyze verify` and its offline security
// review say of them, and that the command line they run, with the example options file, starts a
// manager. Ports 26280 and 28906 belong to this file.
const PORT = 26280;
const NOTIFY_PORT = 28906;
const run = promisify(execFile);
const DEPLOY = fileURLToPath(new URL('../../core/deploy/systemd/', import.meta.url));
const CLI = fileURLToPath(new URL('../../node_modules/.bin/swarm', import.meta.url));
const INSTALLED_CLI = '/opt/swarm/node_modules/.bin/swarm';
const work = mkdtempSync(join(tmpdir(), 'swarm-units-'));

afterAll(() => rmSync(work, { recursive: true, force: true }));

/**
 * A root filesystem laid out as the README installs swarm: the units in /etc/systemd/system, the
 * users file in /usr/lib/sysusers.d, the options in /etc/swarm, and /opt/swarm as npm installs the
 * tarballs there (node_modules/.bin/swarm a relative link to @swarm/core's bin/swarm.js, this
 * checkout's). The host's own units give the targets the units are ordered against.
 */
function installedRoot(): string {
  const root = join(work, 'root');
  if (installedAlready(root)) return root;
  const put = (source: string, target: string, mode = 0o644) => {
    mkdirSync(join(root, target, '..'), { recursive: true });
    copyFileSync(source, join(root, target));
    chmodSync(join(root, target), mode);
  };
  put(join(DEPLOY, 'swarm.sysusers.conf'), '/usr/lib/sysusers.d/swarm.conf');
  put(join(DEPLOY, 'swarm-manage.service'), '/etc/systemd/system/swarm-manage.service');
  put(join(DEPLOY, 'swarm-join.service'), '/etc/systemd/system/swarm-join.service');
  put(join(DEPLOY, 'manage.env'), '/etc/swarm/manage.env', 0o640);
  put(join(DEPLOY, 'join.env'), '/etc/swarm/join.env', 0o640);
  put(fileURLToPath(new URL('../../core/bin/swarm.js', import.meta.url)), '/opt/swarm/node_modules/@swarm/core/bin/swarm.js', 0o755);
  mkdirSync(join(root, '/opt/swarm/node_modules/.bin'), { recursive: true });
  symlinkSync('../@swarm/core/bin/swarm.js', join(root, INSTALLED_CLI));
  cpSync('/lib/systemd/system', join(root, '/usr/lib/systemd/system'), { recursive: true, verbatimSymlinks: true });
  return root;
}

function installedAlready(path: string): boolean {
  try {
    return readFileSync(join(path, 'usr/lib/sysusers.d/swarm.conf')).length > 0;
  } catch {
    return false;
  }
}

/** `KEY=value` lines of a unit's section, in order (a key may repeat). */
function settings(unit: string): Array<[string, string]> {
  return readFileSync(join(DEPLOY, unit), 'utf8')
    .split('\n')
    .filter((line) => /^[A-Za-z]+=/.test(line))
    .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)] as [string, string]);
}

/** An EnvironmentFile as systemd reads it: VAR=value lines, # comments. */
function environmentFile(file: string): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const line of readFileSync(join(DEPLOY, file), 'utf8').split('\n')) {
    const match = /^([A-Z_]+)=(.*)$/.exec(line.trim());
    if (match) vars[match[1]!] = match[2]!;
  }
  return vars;
}

describe.each(['swarm-manage.service', 'swarm-join.service'])('%s', (unit) => {
  it('passes systemd-analyze verify with nothing to say, installed where the README puts it', async () => {
    const root = installedRoot();
    const result = await run('systemd-analyze', ['verify', `--root=${root}`, unit]);
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe('');
    // and the check is real: without the installed CLI it fails, naming the path
    rmSync(join(root, INSTALLED_CLI));
    try {
      const broken = await run('systemd-analyze', ['verify', `--root=${root}`, unit]).catch((error: { stderr: string }) => error);
      expect(broken.stderr).toContain(`Command ${INSTALLED_CLI} is not executable`);
    } finally {
      symlinkSync('../@swarm/core/bin/swarm.js', join(root, INSTALLED_CLI));
    }
  });

  it('restarts on failure, runs as its own user and is hardened (offline exposure under 2)', async () => {
    const keys = new Map(settings(unit));
    expect(keys.get('Restart')).toBe('on-failure');
    expect(keys.get('User')).toBe('swarm');
    expect(keys.get('NoNewPrivileges')).toBe('yes');
    expect(keys.get('ProtectSystem')).toBe('strict');
    expect(keys.get('ProtectHome')).toBe('yes');
    expect(readFileSync(join(DEPLOY, 'swarm.sysusers.conf'), 'utf8')).toMatch(/^u swarm - /m);
    const review = await run('systemd-analyze', ['security', '--offline=yes', `--root=${installedRoot()}`, unit]).catch(
      (error: { stdout: string }) => error,
    );
    const exposure = /Overall exposure level for [^:]+: ([\d.]+)/.exec(review.stdout)?.[1];
    expect(Number(exposure), review.stdout).toBeLessThan(2);
  });
});

/** Makes a CA, a server certificate for 127.0.0.1 and a client certificate. */
const certificates = (dir: string): Promise<void> =>
  makeCertificates(dir, {
    ca: '/CN=units-ca',
    days: 2,
    certificates: [
      { name: 'server', subject: '/CN=127.0.0.1', ips: ['127.0.0.1'], keyFile: 'key.pem', certFile: 'cert.pem' },
      { name: 'client', subject: '/CN=operator', usage: ['clientAuth'], keyFile: 'client-key.pem', certFile: 'client.pem' },
    ],
  });

describe('swarm-manage.service with the example manage.env', () => {
  it('starts a TLS manager from the unit command line and stops on SIGTERM', async () => {
    const tls = mkdtempSync(join(work, 'tls-'));
    await certificates(tls);
    const env = environmentFile('manage.env');
    // the example's paths, moved to this test's folder; no config file anywhere: the defaults run
    const opts = env['SWARM_MANAGE_OPTS']!.replaceAll('/etc/swarm/tls', tls);
    const exec = new Map(settings('swarm-manage.service')).get('ExecStart')!;
    const argv = exec.replace('$SWARM_MANAGE_OPTS', opts).split(/\s+/).slice(1);
    expect(argv[0]).toBe('manage');
    expect(argv).not.toContain('--config');
    const emptyFolder = mkdtempSync(join(work, 'opt-swarm-'));
    const child = spawn(CLI, argv, {
      cwd: emptyFolder,
      env: { ...process.env, SWARM_HOST: `tcp://127.0.0.1:${PORT}`, SWARM_DISCOVERY: 'nodes://127.0.0.1:1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    try {
      /** /_ping's status with or without a client certificate; 0 while nothing listens, -1 when the handshake is refused. */
      const ping = (withCertificate: boolean): Promise<number> =>
        new Promise((resolve) => {
          const req = request(
            {
              host: '127.0.0.1',
              port: PORT,
              path: '/_ping',
              ca: readFileSync(join(tls, 'ca.pem')),
              ...(withCertificate ? { cert: readFileSync(join(tls, 'client.pem')), key: readFileSync(join(tls, 'client-key.pem')) } : {}),
              timeout: 2000,
            },
            (res) => {
              res.resume();
              resolve(res.statusCode ?? 0);
            },
          );
          req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED' ? 0 : -1));
          req.end();
        });
      const deadline = Date.now() + 20_000;
      let answer = 0;
      while (Date.now() < deadline && (answer = await ping(true)) === 0) await new Promise((resolve) => setTimeout(resolve, 200));
      expect(answer, output).toBe(200);
      // --tlsverify from the example: no client certificate, no answer
      expect(await ping(false)).toBe(-1);
    } finally {
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    }
  });
});

/**
 * A stand-in for systemd's notification socket: a Unix datagram socket (Python's, since Node has
 * none) that prints each message and closes the descriptors systemd-notify's barrier passes, as
 * the service manager does.
 */
const NOTIFY_RECEIVER = `
import os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
print("listening", flush=True)
while True:
    msg, fds, flags, addr = socket.recv_fds(s, 4096, 8)
    for fd in fds:
        os.close(fd)
    print(msg.decode().replace("\\n", " "), flush=True)
`;

describe('swarm manage under a notify unit', () => {
  it("says READY=1 once it listens and discovery answered, pings the watchdog, says STOPPING=1, and logs in classic's text format", async () => {
    const socketPath = join(work, 'notify.sock');
    const receiver = spawn('python3', ['-c', NOTIFY_RECEIVER, socketPath], { stdio: ['ignore', 'pipe', 'pipe'] });
    let messages = '';
    receiver.stdout.on('data', (chunk: Buffer) => (messages += chunk.toString()));
    let manager: ChildProcess | undefined;
    try {
      await until(() => messages.includes('listening'), 'the notify socket');
      let output = '';
      manager = spawn(CLI, ['manage', '-H', `tcp://127.0.0.1:${NOTIFY_PORT}`, 'nodes://127.0.0.1:9'], {
        cwd: work,
        env: { ...process.env, NOTIFY_SOCKET: socketPath, WATCHDOG_USEC: '400000', SWARM_LOG_FORMAT: 'text', JOURNAL_STREAM: '' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      manager.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      await until(() => messages.includes('READY=1'), 'READY=1');
      // ready means the listener answers
      expect(await pingStatus(NOTIFY_PORT)).toBe(200);
      expect(messages).toMatch(/READY=1.*STATUS=listening on tcp:\/\/127\.0\.0\.1:28906; 1 nodes/);
      await until(() => (messages.match(/WATCHDOG=1/g) ?? []).length >= 3, 'three watchdog pings (every 200 ms)');
      expect(output).toMatch(/^time="[^"]+" level=info msg="Listening for HTTP" addr="127\.0\.0\.1:28906" proto=tcp$/m);
      const exited = new Promise<number | null>((resolve) => manager!.once('exit', (code) => resolve(code)));
      manager.kill('SIGTERM');
      expect(await exited).toBe(0);
      await until(() => messages.includes('STOPPING=1'), 'STOPPING=1');
    } finally {
      manager?.kill('SIGKILL');
      receiver.kill('SIGKILL');
    }
  });

  it('starts each text line with its syslog priority when the output is the journal', async () => {
    // $JOURNAL_STREAM names the device and inode of the stream systemd gave: here, this file
    const logFile = join(work, 'journal.log');
    writeFileSync(logFile, '');
    const { stdout } = await run('stat', ['-c', '%d:%i', logFile]);
    const fd = openSync(logFile, 'a');
    const child = spawn(CLI, ['manage', '-H', `tcp://127.0.0.1:${NOTIFY_PORT}`, 'nodes://127.0.0.1:9'], {
      cwd: work,
      env: { ...process.env, SWARM_LOG_FORMAT: 'text', JOURNAL_STREAM: stdout.trim() },
      stdio: ['ignore', 'ignore', fd],
    });
    closeSync(fd);
    try {
      await until(() => readFileSync(logFile, 'utf8').includes('Cluster started'), 'the manager started');
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      await exited;
      const lines = readFileSync(logFile, 'utf8').trim().split('\n');
      expect(lines.length).toBeGreaterThan(2);
      for (const line of lines) expect(line).toMatch(/^<[2-7]>time="/);
      expect(lines.find((line) => line.includes('msg="Cluster started"'))).toMatch(/^<6>/);
    } finally {
      child.kill('SIGKILL');
    }
  });
});

async function until(check: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function pingStatus(port: number): Promise<number> {
  return new Promise((resolve) => {
    const req = httpRequest({ host: '127.0.0.1', port, path: '/_ping', timeout: 2000 }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', () => resolve(0));
    req.end();
  });
}
