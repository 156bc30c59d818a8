import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { ErrorCodes, Tokens, isSwarmError, type Logger } from '@swarm/plugin-sdk';
import type { AuthenticationRequest, Authenticator, AuthenticatorFactory } from '@swarm/plugin-sdk/access';
import { noopLogger, pluginProviders } from '@swarm/plugin-sdk/testing';
import plugin, { INVALID_BEARER_TOKEN, bearerToken, parseCsv, parseTokenFile } from '@swarm/authn-token-file';

const factory = pluginProviders(plugin).get<AuthenticatorFactory>(Tokens.Authenticator, 'token-file');
const dir = mkdtempSync(join(tmpdir(), 'swarm-authn-token-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;
/** A token file with these contents, and its name relative to `dir` (the config directory). */
function tokenFile(contents: string): string {
  const name = `tokens-${++files}.csv`;
  writeFileSync(join(dir, name), contents, { mode: 0o600 });
  return name;
}

interface Logged {
  readonly level: string;
  readonly fields: Readonly<Record<string, unknown>>;
  readonly message: string | undefined;
}

/** A logger that keeps its info and warn lines, to check what the file's problems log (and that no token is in it). */
function recordingLogger(): Logger & { lines: Logged[] } {
  const lines: Logged[] = [];
  const keep = (level: string) => (fields: Record<string, unknown> | string, message?: string) =>
    lines.push(typeof fields === 'string' ? { level, fields: {}, message: fields } : { level, fields, message });
  const logger = { ...noopLogger, lines, info: keep('info'), warn: keep('warn'), child: () => logger };
  return logger;
}

const authenticatorFor = (contents: string, logger: Logger = noopLogger): Promise<Authenticator> =>
  Promise.resolve(factory({ options: { path: tokenFile(contents) }, configDir: dir, logger }));

const withAuthorization = (authorization: string | undefined): AuthenticationRequest => ({
  method: 'GET',
  uri: '/v1.41/info',
  headers: authorization === undefined ? {} : { authorization },
  peerCertificates: [],
  remoteAddress: '127.0.0.1',
});

async function failure(promise: Promise<unknown> | unknown): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a failure');
}

// kube-apiserver's own cases (tokenfile_test.go, TestTokenFile)
const KUBE_FILE = `
token1,user1,uid1
token2,user2,uid2
token3,user3,uid3,"group1,group2"
token4,user4,uid4,"group2"
token5,user5,uid5,group5
token6,user6,uid6,group5,otherdata
token7,user7,uid7,"group1,group2",otherdata
`;

describe('token-file authenticator', () => {
  it('is registered as authn token-file', () => {
    expect(pluginProviders(plugin).names(Tokens.Authenticator)).toEqual(['token-file']);
  });

  it("reads kube-apiserver's test file as kube-apiserver does", async () => {
    const authenticator = await authenticatorFor(KUBE_FILE);
    const callerOf = (token: string) => authenticator.authenticate(withAuthorization(`Bearer ${token}`));
    expect(await callerOf('token1')).toEqual({ user: 'user1', uid: 'uid1', groups: [], method: 'token' });
    expect(await callerOf('token2')).toEqual({ user: 'user2', uid: 'uid2', groups: [], method: 'token' });
    expect(await callerOf('token3')).toEqual({ user: 'user3', uid: 'uid3', groups: ['group1', 'group2'], method: 'token' });
    expect(await callerOf('token4')).toEqual({ user: 'user4', uid: 'uid4', groups: ['group2'], method: 'token' });
    expect(await callerOf('token5')).toEqual({ user: 'user5', uid: 'uid5', groups: ['group5'], method: 'token' });
    expect(await callerOf('token6')).toEqual({ user: 'user6', uid: 'uid6', groups: ['group5'], method: 'token' });
    expect(await callerOf('token7')).toEqual({ user: 'user7', uid: 'uid7', groups: ['group1', 'group2'], method: 'token' });
    expect(await callerOf('token8')).toEqual({ failed: true, reason: INVALID_BEARER_TOKEN });
  });

  it('refuses a record of fewer than 3 columns, naming the file and line (TestBadTokenFile, TestInsufficientColumnsTokenFile)', async () => {
    const bad = tokenFile('\ntoken1,user1,uid1\ntoken2,user2,uid2\ntoken3,user3\ntoken4\n');
    const error = await failure(factory({ options: { path: bad }, configDir: dir, logger: noopLogger }));
    expect(isSwarmError(error, ErrorCodes.CONFIG_INVALID)).toBe(true);
    expect(error.message).toBe(`token file ${join(dir, bad)}, line 4: must have at least 3 columns (token, user name, user uid), found 2`);
    expect((await failure(authenticatorFor('token4\n'))).message).toMatch(
      /, line 1: must have at least 3 columns \(token, user name, user uid\), found 1$/,
    );
  });

  it('skips a record with an empty token, with a warning (TestEmptyTokenTokenFile)', async () => {
    const logger = recordingLogger();
    const { lines } = logger;
    const authenticator = await authenticatorFor(',user5,uid5\n', logger);
    expect(await authenticator.authenticate(withAuthorization('Bearer user5'))).toEqual({ failed: true, reason: INVALID_BEARER_TOKEN });
    expect(lines.filter((line) => line.level === 'warn').map((line) => [line.fields['line'], line.message])).toEqual([
      [1, 'token file: empty token: the line is ignored'],
    ]);
    expect(lines.find((line) => line.level === 'info')?.fields['tokens']).toBe(0);
  });

  it('warns of a duplicate token by line, never saying it, and the later line wins', async () => {
    const logger = recordingLogger();
    const { lines } = logger;
    const authenticator = await authenticatorFor('s3cret-one,alice,1\ns3cret-two,bob,2\ns3cret-one,carol,3\n', logger);
    expect(await authenticator.authenticate(withAuthorization('Bearer s3cret-one'))).toMatchObject({ user: 'carol', uid: '3' });
    const warnings = lines.filter((line) => line.level === 'warn');
    expect(warnings.map((line) => [line.fields['line'], line.message])).toEqual([
      [3, 'token file: duplicate token (first on line 1): this later line wins'],
    ]);
    expect(JSON.stringify(lines)).not.toContain('s3cret');
  });

  it('refuses an empty user name; drops empty group names', async () => {
    expect((await failure(authenticatorFor('t1,alice,1\nt2,,2\n'))).message).toMatch(/, line 2: empty user name$/);
    const authenticator = await authenticatorFor('t1,alice,,"dev,,ops,"\nt2,bob,2,\n');
    expect(await authenticator.authenticate(withAuthorization('Bearer t1'))).toEqual({
      user: 'alice',
      groups: ['dev', 'ops'],
      method: 'token',
    });
    expect(await authenticator.authenticate(withAuthorization('Bearer t2'))).toEqual({
      user: 'bob',
      uid: '2',
      groups: [],
      method: 'token',
    });
  });

  it('keeps white space, as kube-apiserver does (no trimming)', async () => {
    const authenticator = await authenticatorFor('t1, alice,1,"dev, ops"\n');
    expect(await authenticator.authenticate(withAuthorization('Bearer t1'))).toEqual({
      user: ' alice',
      uid: '1',
      groups: ['dev', ' ops'],
      method: 'token',
    });
  });

  it('reads the path relative to the config directory, and says what is wrong with the options', async () => {
    const settings = { configDir: dir, logger: noopLogger };
    expect((await failure(factory({ ...settings, options: {} }))).message).toBe(
      'authn "token-file" needs option path: the token file (lines token,user,uid,"group1,group2")',
    );
    expect((await failure(factory({ ...settings, options: { path: 7 } }))).message).toMatch(/needs option path/);
    expect((await failure(factory({ ...settings, options: { path: 'x', reload: true } }))).message).toBe(
      'authn "token-file": unknown option "reload"; known options: path',
    );
    const missing = await failure(factory({ ...settings, options: { path: 'absent.csv' } }));
    expect(isSwarmError(missing, ErrorCodes.CONFIG_INVALID)).toBe(true);
    expect(missing.message).toMatch(new RegExp(`^cannot read token file ${join(dir, 'absent.csv')}: ENOENT`));
    const absolute = join(dir, tokenFile('abs,alice,1\n'));
    const authenticator = await factory({ ...settings, configDir: '/nowhere', options: { path: absolute } });
    expect(await authenticator.authenticate(withAuthorization('Bearer abs'))).toMatchObject({ user: 'alice' });
  });

  it('keeps no token in memory, only their digests', async () => {
    const authenticator = await authenticatorFor('kept-nowhere-7f3a,alice,1\n');
    expect(inspect(authenticator, { depth: 20, showHidden: true })).not.toContain('kept-nowhere');
  });

  it('matches a UTF-8 token in the file with the same bytes in the header (Node.js decodes headers as latin1)', async () => {
    const authenticator = await authenticatorFor('zoë-token,zoë,1\n');
    const onTheWire = Buffer.from('zoë-token', 'utf8').toString('latin1');
    expect(await authenticator.authenticate(withAuthorization(`Bearer ${onTheWire}`))).toMatchObject({ user: 'zoë' });
    // not a header Node.js could give: a character above U+00FF matches nothing, not its low byte
    expect(await authenticator.authenticate(withAuthorization('Bearer zoë-token'))).toEqual({ failed: true, reason: INVALID_BEARER_TOKEN });
    const lowByte = await authenticatorFor('a,alice,1\n');
    expect(await lowByte.authenticate(withAuthorization('Bearer \u0161'))).toEqual({ failed: true, reason: INVALID_BEARER_TOKEN });
  });

  it('answers a wrong bearer token with a failure that does not echo it', async () => {
    const authenticator = await authenticatorFor(KUBE_FILE);
    const result = await authenticator.authenticate(withAuthorization('Bearer token1-guess'));
    expect(result).toEqual({ failed: true, reason: 'invalid bearer token' });
    expect(JSON.stringify(result)).not.toContain('guess');
  });

  it('leaves requests without a bearer token to the next authenticator', async () => {
    const authenticator = await authenticatorFor(KUBE_FILE);
    for (const header of [undefined, '', 'Basic dXNlcjpwYXNz', 'Bearer', 'Bearer  token1', 'token1']) {
      expect(await authenticator.authenticate(withAuthorization(header))).toBeUndefined();
    }
  });
});

describe('bearerToken', () => {
  it("reads the Authorization header as kube-apiserver's bearertoken authenticator does", () => {
    const read = (authorization: string | string[] | undefined) => bearerToken({ authorization });
    expect(read('Bearer abc')).toBe('abc');
    expect(read('bearer abc')).toBe('abc');
    expect(read('BEARER abc')).toBe('abc');
    expect(read('  Bearer abc \t')).toBe('abc');
    expect(read('Bearer abc extra words')).toBe('abc');
    expect(read(['Bearer first', 'Bearer second'])).toBe('first');
    expect(read('Bearer  abc')).toBeUndefined();
    expect(read('Bearer')).toBeUndefined();
    expect(read('Bearer ')).toBeUndefined();
    expect(read('Bearer\tabc')).toBeUndefined();
    expect(read('Basic abc')).toBeUndefined();
    expect(read(undefined)).toBeUndefined();
    expect(bearerToken({})).toBeUndefined();
  });
});

describe('parseTokenFile and parseCsv (Go encoding/csv, as kube-apiserver reads the file)', () => {
  const records = (text: string) => {
    const result = parseCsv(text);
    if ('error' in result) throw new Error(`unexpected error ${JSON.stringify(result.error)}`);
    return result.records.map((record) => [record.line, ...record.fields]);
  };
  const errorOf = (text: string) => ('error' in parseCsv(text) ? (parseCsv(text) as { error: unknown }).error : undefined);

  it('skips empty lines, counts a line of spaces as a record, and reads CRLF files', () => {
    expect(records('\n\na,b,c\n\n\r\nd,e,f')).toEqual([
      [3, 'a', 'b', 'c'],
      [6, 'd', 'e', 'f'],
    ]);
    expect(records('  \n')).toEqual([[1, '  ']]);
    expect(records('a,b\r\nc,d\r')).toEqual([
      [1, 'a', 'b'],
      [2, 'c', 'd'],
    ]);
    expect(records('a\rb,c\n')).toEqual([[1, 'a\rb', 'c']]);
    expect(records('a,b,\n')).toEqual([[1, 'a', 'b', '']]);
    expect(records('')).toEqual([]);
  });

  it('reads quoted fields: doubled quotes, commas and newlines inside', () => {
    expect(records('"the ""word"" is",b,"c,d"\n')).toEqual([[1, 'the "word" is', 'b', 'c,d']]);
    expect(records('t,u,"multi\r\n\nline",x\nnext,1,2\n')).toEqual([
      [1, 't', 'u', 'multi\n\nline', 'x'],
      [4, 'next', '1', '2'],
    ]);
    expect(records('"",b,""')).toEqual([[1, '', 'b', '']]);
  });

  it('refuses a quote in an unquoted field, text after a closing quote, and an unclosed quote', () => {
    expect(errorOf('ab"c,d\n')).toEqual({ line: 1, column: 3, reason: 'bare " in non-quoted-field' });
    expect(errorOf('ok,1,2\n"a"b,c\n')).toEqual({ line: 2, column: 3, reason: 'extraneous or missing " in quoted-field' });
    expect(errorOf('ok,1,2\n"open,1,2\nmore')).toEqual({ line: 3, column: 5, reason: 'extraneous or missing " in quoted-field' });
  });

  it('says where a syntax error is in the token file', async () => {
    const error = await failure(authenticatorFor('t1,alice,1\nt2,bob,2,"dev"x\n'));
    expect(error.message).toMatch(/, line 2: column 14: extraneous or missing " in quoted-field$/);
    expect(parseTokenFile('t1,alice,1,"a,b"\n')).toEqual({
      entries: [{ line: 1, token: 't1', user: 'alice', uid: '1', groups: ['a', 'b'] }],
      warnings: [],
    });
  });
});
