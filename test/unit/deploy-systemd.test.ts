import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { makeCertificates } from '../harness/certificates.js';

// The systemd units in core/deploy/systemd: what `systemd-analyze verify` and its offline security
// review say of them, and that the command line they run, with the example options file, starts a
// manager. Port 26280 belongs to this file.
const PORT = 26280;
const run = promisify(execFile);
const DEPLOY = fileURLToPath(new URL('../../core/deploy/systemd/', import.meta.url));
const CLI = fileURLToPath(new URL('../../node_modules/.bin/swarm', import.meta.url));
const INSTALLED_CLI = '/opt/swarm/node_modules/.bin/swarm';
const work = mkdtempSync(join(tmpdir(), 'swarm-units-'));

afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The unit as installed, its ExecStart pointing at this checkout's CLI (verify checks the path exists). */
function localCopy(unit: string): string {
  const text = readFileSync(join(DEPLOY, unit), 'utf8');
  expect(text).toContain(INSTALLED_CLI);
  const path = join(work, unit);
  writeFileSync(path, text.replaceAll(INSTALLED_CLI, CLI));
  return path;
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
  it('passes systemd-analyze verify with nothing to say', async () => {
    const result = await run('systemd-analyze', ['verify', localCopy(unit)]);
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe('');
  });

  it('restarts on failure, runs as its own user and is hardened (offline exposure under 2)', async () => {
    const keys = new Map(settings(unit));
    expect(keys.get('Restart')).toBe('on-failure');
    expect(keys.get('User')).toBe('swarm');
    expect(keys.get('NoNewPrivileges')).toBe('yes');
    expect(keys.get('ProtectSystem')).toBe('strict');
    expect(keys.get('ProtectHome')).toBe('yes');
    expect(readFileSync(join(DEPLOY, 'swarm.sysusers.conf'), 'utf8')).toMatch(/^u swarm - /m);
    const review = await run('systemd-analyze', ['security', '--offline=yes', localCopy(unit)]).catch((error: { stdout: string }) => error);
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
    writeFileSync(join(work, 'swarm.config.js'), 'export default {};\n');
    const env = environmentFile('manage.env');
    // the example's paths, moved to this test's folder
    const opts = env['SWARM_MANAGE_OPTS']!.replaceAll('/etc/swarm/tls', tls).replace(
      '/opt/swarm/swarm.config.js',
      join(work, 'swarm.config.js'),
    );
    const exec = new Map(settings('swarm-manage.service')).get('ExecStart')!;
    const argv = exec.replace('$SWARM_MANAGE_OPTS', opts).split(/\s+/).slice(1);
    expect(argv.slice(0, 2)).toEqual(['manage', '--config']);
    const child = spawn(CLI, argv, {
      cwd: work,
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
