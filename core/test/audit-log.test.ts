import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { ErrorCodes, isSwarmError } from '@swarm/plugin-sdk';
import { AuditLog, auditPath, auditTime, type AuditRecord } from '../dist/access/audit-log.js';
import { auditLine } from '../dist/access/audit-record.js';
import { backupStamp } from '../dist/access/rotating-file.js';
import { recordingLogger } from './api-recording-logger.js';

const run = promisify(execFile);
const root = mkdtempSync(join(tmpdir(), 'swarm-audit-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let dirs = 0;
const freshDir = (): string => {
  const dir = join(root, `d${++dirs}`);
  mkdirSync(dir);
  return dir;
};

const record = (n: number, overrides: Partial<AuditRecord> = {}): AuditRecord => ({
  time: auditTime(Date.UTC(2026, 11, 6, 4, 5, 6, 7)),
  requestId: `req-${n}`,
  user: 'alice',
  groups: ['dev', 'ops'],
  authMethod: 'TLS',
  sourceAddress: '10.0.0.7',
  method: 'POST',
  path: '/v1.41/containers/create',
  action: 'container.create',
  decision: { allowed: true, plugin: 'rules', rule: 'binding dev' },
  status: 201,
  durationMs: 12.5,
  ...overrides,
});

const linesOf = (file: string): unknown[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as unknown);

const ids = (file: string): string[] => linesOf(file).map((line) => (line as { requestId: string }).requestId);

describe('audit log lines', () => {
  it('writes one JSON object per line: the fields in a fixed order, stage ResponseComplete unless given', async () => {
    const path = join(freshDir(), 'audit.log');
    const log = await AuditLog.open({ path }, recordingLogger());
    const started = record(2, {
      stage: 'ResponseStarted',
      uid: '1001',
      method: 'GET',
      path: '/v1.41/containers/abc/logs?follow=1&tail=10',
      action: 'container.logs',
      object: { kind: 'container', id: 'abc', name: 'web', node: 'node-1' },
      decision: { allowed: false, plugin: 'rules', rule: 'binding view', reason: 'user alice may not container.logs' },
      status: 403,
    });
    log.record(record(1));
    log.record(started);
    await log.close();
    expect(readFileSync(path, 'utf8').endsWith('\n')).toBe(true);
    expect(record(1).time).toBe('2026-12-06T04:05:06.007Z');
    expect(linesOf(path)).toEqual([
      { ...record(1), stage: 'ResponseComplete' },
      { ...started, path: '/v1.41/containers/abc/logs' },
    ]);
    expect(Object.keys(linesOf(path)[1] as object)).toEqual([
      'time',
      'stage',
      'requestId',
      'user',
      'uid',
      'groups',
      'authMethod',
      'sourceAddress',
      'method',
      'path',
      'action',
      'object',
      'decision',
      'status',
      'durationMs',
    ]);
  });

  it('creates the file readable by its owner only', async () => {
    const path = join(freshDir(), 'audit.log');
    const log = await AuditLog.open({ path }, recordingLogger());
    log.record(record(1));
    await log.close();
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('writes everything recorded before close, however much, in order', async () => {
    const path = join(freshDir(), 'audit.log');
    const log = new AuditLog({ path }, recordingLogger());
    for (let n = 0; n < 2000; n++) {
      log.record(record(n));
      if (n % 500 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    await log.close();
    expect(ids(path)).toEqual(Array.from({ length: 2000 }, (_, n) => `req-${n}`));
    expect(log.dropped).toBe(0);
  });
});

describe('nothing secret in the audit log', () => {
  // headers, a body with its environment, credentials: what a careless caller could spread in
  const secrets = {
    headers: { authorization: 'Bearer s3cret-token', 'x-registry-auth': 'eyJwYXNzd29yZCI6InMzY3JldCJ9' },
    body: { Env: ['DB_PASSWORD=s3cret'] },
    env: ['DB_PASSWORD=s3cret'],
    authorization: 'Bearer s3cret-token',
  };

  it('writes only the record’s own fields, whatever object it is given', async () => {
    const path = join(freshDir(), 'audit.log');
    const log = new AuditLog({ path }, recordingLogger());
    const rich = { ...record(1), ...secrets, object: { kind: 'container' as const, id: 'c1', labels: { password: 's3cret' } } };
    log.record(rich);
    log.record({ ...record(2), decision: { allowed: true, ...secrets } as AuditRecord['decision'] });
    log.record(record(3, { path: '/v1.41/build?buildargs=%7B%22TOKEN%22%3A%22s3cret%22%7D&t=app' }));
    log.record(record(4, { path: 'http://admin:s3cret@manager:2375/v1.41/info?x=s3cret' }));
    await log.close();
    const text = readFileSync(path, 'utf8');
    expect(text).not.toMatch(/s3cret|eyJw|authorization|x-registry-auth|headers|body|Env|labels/i);
    expect(linesOf(path).map((line) => (line as { path: string }).path)).toEqual([
      '/v1.41/containers/create',
      '/v1.41/containers/create',
      '/v1.41/build',
      '/v1.41/info',
    ]);
  });

  it('has no field for headers or bodies (the type refuses them)', () => {
    const withHeaders: AuditRecord = {
      ...record(1),
      // @ts-expect-error AuditRecord has no headers
      headers: { authorization: 'Bearer x' },
    };
    expect(withHeaders.requestId).toBe('req-1');
  });

  it('auditPath keeps the path of a request target and nothing else', () => {
    expect(auditPath('/v1.41/containers/json?all=1&filters=%7B%7D')).toBe('/v1.41/containers/json');
    expect(auditPath('/v1.41/auth')).toBe('/v1.41/auth');
    expect(auditPath('/_ping#frag')).toBe('/_ping');
    expect(auditPath('https://user:pass@host:2376/v1.41/info?a=b')).toBe('/v1.41/info');
    expect(auditPath('http://[bad')).toBe('/');
    expect(auditPath('*')).toBe('*');
    expect(auditPath('')).toBe('');
  });
});

describe('rotation', () => {
  const STAMP = /^audit-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}\.log$/;

  it("names backups as kube-apiserver's lumberjack does, in UTC", () => {
    expect(backupStamp(new Date(Date.UTC(2026, 11, 6, 4, 5, 6, 0)))).toBe('2026-12-06T04-05-06.000');
    expect(backupStamp(new Date(Date.UTC(2027, 0, 1, 23, 59, 59, 999)))).toBe('2027-01-01T23-59-59.999');
  });

  it('rotates before a line would take the file past its size, keeping the newest backups', async () => {
    const dir = freshDir();
    const path = join(dir, 'audit.log');
    // every test line is as long as this one
    const lineBytes = Buffer.byteLength(auditLine(record(10)));
    const log = await AuditLog.open({ path, maxSizeBytes: lineBytes * 4, maxBackups: 2 }, recordingLogger());
    // 30 lines, some one at a time and some in batches: 7 full files and a part
    for (let n = 10; n < 40; n++) {
      log.record(record(n));
      if (n % 3 === 0) await log.flush();
    }
    await log.close();
    const files = readdirSync(dir).sort();
    const backups = files.filter((file) => file !== 'audit.log');
    expect(files).toContain('audit.log');
    expect(backups).toHaveLength(2);
    for (const backup of backups) expect(backup).toMatch(STAMP);
    for (const file of files) expect(statSync(join(dir, file)).size).toBeLessThanOrEqual(lineBytes * 4);
    const kept = [...backups.map((backup) => ids(join(dir, backup))).flat(), ...ids(path)];
    expect(kept).toEqual(Array.from({ length: 10 }, (_, n) => `req-${30 + n}`));
    expect(log.dropped).toBe(0);
  });

  it('keeps every backup with maxBackups 0, and starts a file of its own for a line larger than the limit', async () => {
    const dir = freshDir();
    const path = join(dir, 'audit.log');
    const log = await AuditLog.open({ path, maxSizeBytes: 100, maxBackups: 0 }, recordingLogger());
    for (let n = 0; n < 12; n++) log.record(record(n));
    await log.close();
    const files = readdirSync(dir);
    expect(files).toHaveLength(12);
    const all = files
      .sort()
      .filter((file) => file !== 'audit.log')
      .concat('audit.log')
      .flatMap((file) => ids(join(dir, file)));
    expect(all).toEqual(Array.from({ length: 12 }, (_, n) => `req-${n}`));
  });
});

describe('when writing fails', () => {
  it('makes a missing folder (0700), as kube-apiserver does, so /var/log/swarm/audit.log works on a fresh machine', async () => {
    const path = join(root, 'new-folder', 'deeper', 'audit.log');
    const log = await AuditLog.open({ path }, recordingLogger());
    log.record(record(0));
    await log.close();
    expect(ids(path)).toEqual(['req-0']);
    expect(statSync(join(root, 'new-folder', 'deeper')).mode & 0o777).toBe(0o700);
  });

  it('does not start with a file it cannot open', async () => {
    writeFileSync(join(root, 'a-file'), '');
    const path = join(root, 'a-file', 'audit.log');
    let error: unknown;
    try {
      await AuditLog.open({ path }, recordingLogger());
    } catch (thrown) {
      error = thrown;
    }
    expect(isSwarmError(error, ErrorCodes.CONFIG_INVALID)).toBe(true);
    expect((error as Error).message).toMatch(new RegExp(`^cannot write the audit log ${path}: E(NOTDIR|EXIST)`));
  });

  it.runIf(existsSync('/dev/full'))('a full disk: nothing thrown, lines counted as dropped, one warning', async () => {
    const logger = recordingLogger();
    const log = new AuditLog({ path: '/dev/full' }, logger);
    expect(() => {
      for (let n = 0; n < 5; n++) log.record(record(n));
    }).not.toThrow();
    await log.flush();
    for (let n = 5; n < 8; n++) log.record(record(n));
    await log.close();
    expect(log.dropped).toBe(8);
    const warnings = logger.lines.filter((line) => line.level === 'warn');
    expect(warnings.map((line) => line.message)).toEqual([
      'audit log: cannot write; dropping lines until it can',
      'audit log closed; some lines could not be written',
    ]);
    expect(warnings[0]!.fields['reason']).toMatch(/ENOSPC/);
    expect(warnings[1]!.fields['dropped']).toBe(8);
  });

  it('a file someone removed is started again; a directory that vanished drops lines until it is back', async () => {
    const dir = freshDir();
    const path = join(dir, 'audit.log');
    const logger = recordingLogger();
    const log = await AuditLog.open({ path }, logger);
    log.record(record(1));
    await log.flush();
    rmSync(path);
    log.record(record(2));
    await log.flush();
    expect(ids(path)).toEqual(['req-2']);

    rmSync(dir, { recursive: true });
    log.record(record(3));
    await log.flush();
    log.record(record(4));
    await log.flush();
    expect(log.dropped).toBe(2);

    mkdirSync(dir);
    log.record(record(5));
    await log.close();
    expect(ids(path)).toEqual(['req-5']);
    expect(logger.lines.filter((line) => line.level === 'warn').map((line) => [line.message, line.fields['dropped']])).toEqual([
      ['audit log: cannot write; dropping lines until it can', undefined],
      ['audit log: writing again', 2],
      ['audit log closed; some lines could not be written', 2],
    ]);
  });

  it('drops what is recorded after close, without throwing', async () => {
    const path = join(freshDir(), 'audit.log');
    const log = await AuditLog.open({ path }, recordingLogger());
    await log.close();
    expect(() => log.record(record(1))).not.toThrow();
    expect(log.dropped).toBe(1);
  });
});

describe('standard output', () => {
  /** A node process that records `count` lines to standard output (after `delayMs`) and tells on stderr what became of them. */
  const recorder = (count: number, delayMs = 0): string[] => {
    const module = fileURLToPath(new URL('../dist/access/audit-log.js', import.meta.url));
    const script = `
      const { AuditLog } = await import(${JSON.stringify(module)});
      const warnings = [];
      const logger = { warn: (f, m) => warnings.push(m), info() {}, debug() {}, trace() {}, error() {}, child() { return logger; }, level: 'info' };
      const log = new AuditLog({ path: '-' }, logger);
      const base = ${JSON.stringify(record(0))};
      await new Promise((resolve) => setTimeout(resolve, ${delayMs}));
      for (let n = 1; n <= ${count}; n++) {
        log.record({ ...base, requestId: 'req-' + n });
        await log.flush();
      }
      await log.close();
      process.stderr.write(JSON.stringify({ warnings, dropped: log.dropped }));
    `;
    return ['--input-type=module', '-e', script];
  };

  it('writes the lines to standard output with path -', async () => {
    const { stdout, stderr } = await run(process.execPath, recorder(3));
    expect(JSON.parse(stderr)).toEqual({ warnings: [], dropped: 0 });
    const lines = stdout.split('\n');
    expect(lines.pop()).toBe('');
    expect(lines.map((line) => (JSON.parse(line) as { requestId: string }).requestId)).toEqual(['req-1', 'req-2', 'req-3']);
  });

  it('goes on, dropping lines, when the reader of standard output goes away', async () => {
    const child = spawn(process.execPath, recorder(5, 300), { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    expect(JSON.parse(stderr)).toEqual({
      warnings: ['audit log: cannot write; dropping lines until it can', 'audit log closed; some lines could not be written'],
      dropped: 5,
    });
  });
});
