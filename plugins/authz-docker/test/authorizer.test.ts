import { X509Certificate } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ErrorCodes, isSwarmError } from '@swarm/plugin-sdk';
import type { Authorizer } from '@swarm/plugin-sdk/access';
import { MAX_BODY_SIZE, MAX_BUFFER_SIZE } from '@swarm/authz-docker';
import { startAuthzPlugin, type AuthzPlugin } from '../../../test/authz-plugin/authz-plugin.mjs';
import { makeCertificates } from '../../../test/harness/certificates.js';
import { accessRequest, alice, anonymous, authorizerFor, pluginDirs } from './support.js';

let plugin: AuthzPlugin;
let authorizer: Authorizer;

beforeAll(async () => {
  const dirs = pluginDirs();
  mkdirSync(dirs.socketsDir, { recursive: true });
  plugin = await startAuthzPlugin({ socketPath: join(dirs.socketsDir, 'test-authz.sock') });
  authorizer = await authorizerFor({ ...dirs.options, plugin: 'test-authz' });
});
afterAll(() => plugin.close());
beforeEach(() => {
  plugin.clear();
  plugin.setRules([]);
  plugin.setMode('answer');
  plugin.setAnswerText(undefined);
});

const json = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));
const b64 = (text: string | Uint8Array) => Buffer.from(text).toString('base64');
const createBody = json({ Image: 'busybox:local', Cmd: ['sleep', '60'], Labels: { a: '<&>' } });
const createWire = {
  method: 'POST',
  uri: '/v1.41/containers/create?name=web',
  headers: {
    'content-type': 'application/json',
    'content-length': String(createBody.length),
    host: '127.0.0.1:2375',
    'user-agent': 'Docker-Client/28.2.2 (linux)',
  },
  body: createBody,
};

describe('AuthZPlugin.AuthZReq', () => {
  it("sends dockerd's fields: user and method, Go-canonical headers without Host or credentials, the JSON body base64", async () => {
    const headers = {
      ...createWire.headers,
      authorization: 'Bearer x',
      'x-registry-auth': 'secret',
      'x-registry-config': 'c',
      'x-custom-thing': ['one', 'two'],
    };
    expect(await authorizer.authorize(accessRequest({ ...createWire, headers }))).toEqual({ allowed: true });
    const [call] = plugin.calls;
    expect(call!.path).toBe('/AuthZPlugin.AuthZReq');
    expect(call!.headers.accept).toBe('application/vnd.docker.plugins.v1.2+json');
    expect(call!.body).toEqual({
      User: 'alice',
      UserAuthNMethod: 'TLS',
      RequestMethod: 'POST',
      RequestUri: '/v1.41/containers/create?name=web',
      RequestBody: b64(createBody),
      RequestHeaders: {
        'Content-Length': String(createBody.length),
        'Content-Type': 'application/json',
        'User-Agent': 'Docker-Client/28.2.2 (linux)',
        'X-Custom-Thing': 'two',
      },
    });
    // Go's encoder: struct field order, sorted map keys, HTML-safe escapes, a trailing newline
    expect(call!.raw.startsWith('{"User":"alice","UserAuthNMethod":"TLS","RequestMethod":"POST","RequestUri":')).toBe(true);
    expect(call!.raw.endsWith('}\n')).toBe(true);
  });

  it('omits User and UserAuthNMethod for the anonymous caller, as dockerd without TLS does', async () => {
    await authorizer.authorize(accessRequest({ method: 'GET', uri: '/v1.41/containers/json' }, anonymous));
    expect(plugin.authzCalls()).toEqual([{ phase: 'request', RequestMethod: 'GET', RequestUri: '/v1.41/containers/json' }]);
  });

  it('sends the body when moby does: JSON (not text/*), whatever its framing, up to 1 MiB, not for the /auth endpoint', async () => {
    const create = '/v1.41/containers/create';
    const cases: Array<[string, Record<string, string>, string, Uint8Array, boolean]> = [
      ['json with charset', { 'content-type': 'application/json; charset=utf-8' }, create, createBody, true],
      ['other case', { 'content-type': 'Application/JSON;charset=UTF8' }, create, createBody, true],
      ['text/plain', { 'content-type': 'text/plain' }, create, createBody, false],
      ['tar', { 'content-type': 'application/x-tar' }, '/v1.41/build', createBody, false],
      ['no content type', {}, create, createBody, false],
      ['chunked', { 'content-type': 'application/json', 'transfer-encoding': 'chunked' }, create, createBody, true],
      ['login', { 'content-type': 'application/json' }, '/v1.41/auth', json({ username: 'u', password: 'p' }), false],
      ['login, no version', { 'content-type': 'application/json' }, '/auth', json({ username: 'u', password: 'p' }), false],
      // moby reads the path, not the URI's end: a query that ends in /auth hides nothing
      ['query ending in /auth', { 'content-type': 'application/json' }, `${create}?x=/auth`, createBody, true],
      ['escaped /auth', { 'content-type': 'application/json' }, '/v1.41/%61uth', json({ username: 'u', password: 'p' }), false],
      ['1 MiB - 1', { 'content-type': 'application/json' }, create, new Uint8Array(MAX_BODY_SIZE - 1).fill(32), true],
      ['1 MiB', { 'content-type': 'application/json' }, create, new Uint8Array(MAX_BODY_SIZE).fill(32), true],
    ];
    for (const [label, headers, uri, body, sent] of cases) {
      plugin.clear();
      const withLength = headers['transfer-encoding'] ? headers : { ...headers, 'content-length': String(body.length) };
      await authorizer.authorize(accessRequest({ method: 'POST', uri, headers: withLength, body }));
      expect([label, plugin.authzCalls()[0]!.RequestBody !== undefined]).toEqual([label, sent]);
    }
  });

  it("refuses a JSON body over 1 MiB with moby's 500 instead of asking without it, read or only announced", async () => {
    const big = new Uint8Array(MAX_BODY_SIZE + 1).fill(32);
    const refusal = `request body too large for authorization plugin: size exceeds ${MAX_BODY_SIZE} bytes`;
    for (const wire of [
      { headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' }, body: big },
      { headers: { 'content-type': 'application/json', 'content-length': String(big.length) }, body: big },
      // an upgraded request's body the host did not read: its length says enough
      { headers: { 'content-type': 'application/json', 'content-length': String(big.length) } },
    ]) {
      plugin.clear();
      const asked = authorizer.authorize(accessRequest({ method: 'POST', uri: '/v1.41/containers/create', ...wire }));
      await expect(asked).rejects.toMatchObject({ message: refusal, httpStatus: 500 });
      expect(plugin.authzCalls()).toEqual([]);
    }
    // not JSON: never shown to plugins, so never refused for its size (a build context)
    await authorizer.authorize(
      accessRequest({ method: 'POST', uri: '/v1.41/build', headers: { 'content-type': 'application/x-tar' }, body: big }),
    );
    expect(plugin.authzCalls()[0]!.RequestBody).toBeUndefined();
  });

  it('sends each TLS peer certificate as Go marshals PeerCertificate: base64 of its PEM text', async () => {
    const raw = new Uint8Array(100).map((_, i) => i);
    await authorizer.authorize(
      accessRequest({ method: 'GET', uri: '/info', peerCertificates: [{ subject: { CN: 'alice', O: [] }, raw }] }),
    );
    const [pem] = plugin.authzCalls()[0]!.RequestPeerCertificates!;
    const der = Buffer.from(raw).toString('base64');
    expect(Buffer.from(pem!, 'base64').toString()).toBe(
      `-----BEGIN CERTIFICATE-----\n${der.slice(0, 64)}\n${der.slice(64, 128)}\n${der.slice(128)}\n-----END CERTIFICATE-----\n`,
    );
  });

  it('sends the chain the client presented: the trust anchor Node.js appends to the verified chain is left out', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'swarm-authz-docker-certs-'));
    await makeCertificates(dir, {
      ca: '/CN=authz-test-ca',
      certificates: [{ name: 'alice', subject: '/CN=alice', usage: ['clientAuth'] }],
    });
    const der = (name: string) => ({ subject: { CN: name, O: [] }, raw: new X509Certificate(readFileSync(join(dir, `${name}.pem`))).raw });
    const [leaf, root] = [der('alice-cert'), der('ca')];
    await authorizer.authorize(accessRequest({ method: 'GET', uri: '/info', peerCertificates: [leaf, root] }));
    // openssl's PEM file is the text Go's pem.EncodeToMemory writes
    expect(plugin.authzCalls()[0]!.RequestPeerCertificates).toEqual([readFileSync(join(dir, 'alice-cert.pem')).toString('base64')]);
    plugin.clear();
    await authorizer.authorize(accessRequest({ method: 'GET', uri: '/info', peerCertificates: [root] }));
    expect(plugin.authzCalls()[0]!.RequestPeerCertificates).toHaveLength(1);
  });

  it("denies with the engine's text, 403, naming the plugin; by method and URI, and by user", async () => {
    plugin.setRules([
      { method: 'DELETE', uri: /^\/v[\d.]+\/containers\//, msg: 'removing containers is not allowed' },
      { user: 'bob', msg: 'bob is read-only' },
    ]);
    expect(await authorizer.authorize(accessRequest({ method: 'DELETE', uri: '/v1.41/containers/abc?force=1' }))).toEqual({
      allowed: false,
      reason: 'authorization denied by plugin test-authz: removing containers is not allowed',
      rule: 'test-authz',
    });
    expect(await authorizer.authorize(accessRequest({ method: 'GET', uri: '/v1.41/info' }, { ...alice, user: 'bob' }))).toMatchObject({
      reason: 'authorization denied by plugin test-authz: bob is read-only',
    });
    expect(await authorizer.authorize(accessRequest({ method: 'GET', uri: '/v1.41/info' }))).toEqual({ allowed: true });
  });

  it('a plugin that fails gives dockerd\'s "plugin NAME failed with error: ..." as a 500', async () => {
    const failure = async () => authorizer.authorize(accessRequest({ method: 'GET', uri: '/v1.41/info' })).catch((error: unknown) => error);
    plugin.setMode('error');
    const remote = await failure();
    expect(isSwarmError(remote, ErrorCodes.PLUGIN_FAILED) && remote.httpStatus).toBe(500);
    expect((remote as Error).message).toBe('plugin test-authz failed with error: AuthZPlugin.AuthZReq: the policy engine is down');
    plugin.setMode('garbage');
    expect(((await failure()) as Error).message).toBe(
      "plugin test-authz failed with error: invalid character '<' looking for beginning of value",
    );
    plugin.setMode('hang-up');
    expect(((await failure()) as Error).message).toBe(
      'plugin test-authz failed with error: Post "http://plugin.moby.localhost/AuthZPlugin.AuthZReq": EOF',
    );
  });
});

describe('answers read as Go reads authorization.Response', () => {
  const ask = () => authorizer.authorize(accessRequest({ method: 'GET', uri: '/v1.41/info' }));
  const reason = async (text: string) => {
    plugin.setAnswerText(text);
    return ask().then(
      (decision) => (decision.allowed ? 'allowed' : decision.reason),
      (error: unknown) => (error as Error).message,
    );
  };

  it('matches field names in any case; Allow false without Msg denies with an empty message; Err alone is not read', async () => {
    expect(await reason('{"allow": true}')).toBe('allowed');
    expect(await reason('{"ALLOW": false, "msg": "quiet"}')).toBe('authorization denied by plugin test-authz: quiet');
    expect(await reason('{"Allow": false, "Err": "boom"}')).toBe('authorization denied by plugin test-authz: ');
    expect(await reason('null')).toBe('authorization denied by plugin test-authz: ');
  });

  it("words bad answers as Go's encoding/json", async () => {
    const failed = (text: string) => `plugin test-authz failed with error: ${text}`;
    expect(await reason('')).toBe(failed('EOF'));
    expect(await reason('nope')).toBe(failed("invalid character 'o' in literal null (expecting 'u')"));
    expect(await reason('{"Allow":')).toBe(failed('unexpected EOF'));
    expect(await reason('{"Allow": "yes"}')).toBe(failed('json: cannot unmarshal string into Go struct field Response.Allow of type bool'));
    expect(await reason('[]')).toBe(failed('json: cannot unmarshal array into Go value of type authorization.Response'));
  });
});

describe('AuthZPlugin.AuthZRes', () => {
  const listHeaders = {
    'content-type': 'application/json',
    'api-version': '1.41',
    server: 'Docker/20.10.24+dfsg1 (linux)',
    ostype: 'linux',
    'docker-experimental': 'false',
    date: 'x',
    'content-length': '3',
  };

  it("sends the request fields again with the status, headers Go's server did not add, and a JSON body", async () => {
    const request = accessRequest(createWire);
    await authorizer.authorize(request);
    const body = json({ Id: 'abc', Warnings: [] });
    expect(
      await authorizer.review!(request, { statusCode: 201, headers: { ...listHeaders, 'content-length': String(body.length) }, body }),
    ).toEqual({ allowed: true });
    const [req, res] = plugin.authzCalls();
    expect(res).toEqual({
      ...req,
      phase: 'response',
      ResponseStatusCode: 201,
      ResponseBody: b64(body),
      ResponseHeaders: {
        'Api-Version': '1.41',
        'Content-Type': 'application/json',
        'Docker-Experimental': 'false',
        Ostype: 'linux',
        Server: 'Docker/20.10.24+dfsg1 (linux)',
      },
    });
  });

  it("a failed handler: no status, no body, the middlewares' headers only, and the plugin cannot turn the error into a denial", async () => {
    plugin.setRules([{ phase: 'response', msg: 'never' }]);
    const request = accessRequest({ method: 'GET', uri: '/v1.41/containers/nope/json' });
    const answer = await authorizer.review!(request, {
      statusCode: 404,
      headers: listHeaders,
      body: json({ message: 'No such container: nope' }),
    });
    expect(answer).toEqual({ allowed: true });
    const [res] = plugin.authzCalls();
    expect(res).toEqual({
      phase: 'response',
      User: 'alice',
      UserAuthNMethod: 'TLS',
      RequestMethod: 'GET',
      RequestUri: '/v1.41/containers/nope/json',
      ResponseHeaders: { 'Api-Version': '1.41', 'Docker-Experimental': 'false', Ostype: 'linux', Server: 'Docker/20.10.24+dfsg1 (linux)' },
    });
  });

  it('an answer over 64 KiB was flushed before AuthZRes in dockerd: no status, headers or body', async () => {
    const request = accessRequest({ method: 'GET', uri: '/v1.41/containers/json?all=1' });
    await authorizer.review!(request, { statusCode: 200, headers: listHeaders, body: new Uint8Array(MAX_BUFFER_SIZE + 1).fill(32) });
    expect(plugin.authzCalls()[0]).toEqual({
      phase: 'response',
      User: 'alice',
      UserAuthNMethod: 'TLS',
      RequestMethod: 'GET',
      RequestUri: '/v1.41/containers/json?all=1',
    });
  });

  it('a streamed answer (the host held no body) was flushed in dockerd: no status, headers or body', async () => {
    const request = accessRequest({ method: 'GET', uri: '/v1.41/containers/abc/logs?stdout=1' });
    await authorizer.review!(request, {
      statusCode: 200,
      headers: { 'content-type': 'application/vnd.docker.multiplexed-stream', 'api-version': '1.41' },
    });
    expect(plugin.authzCalls()[0]).toEqual({
      phase: 'response',
      User: 'alice',
      UserAuthNMethod: 'TLS',
      RequestMethod: 'GET',
      RequestUri: '/v1.41/containers/abc/logs?stdout=1',
    });
  });

  it('a 204 keeps its status and headers even when it went out unheld (stop); cp and resize answers have no status', async () => {
    const middleware = { 'api-version': '1.41', server: 'Docker/20.10.24 (linux)', date: 'Mon, 07 Dec 2026 19:00:00 GMT' };
    const fieldsFor = async (method: string, uri: string, statusCode: number, headers: Record<string, string>) => {
      plugin.clear();
      await authorizer.review!(accessRequest({ method, uri }), { statusCode, headers });
      const { ResponseStatusCode, ResponseHeaders } = plugin.authzCalls()[0]!;
      return { ResponseStatusCode, ResponseHeaders };
    };
    const headers = { 'Api-Version': '1.41', Server: 'Docker/20.10.24 (linux)' };
    expect(await fieldsFor('POST', '/v1.41/containers/abc/stop?t=1', 204, middleware)).toEqual({
      ResponseStatusCode: 204,
      ResponseHeaders: headers,
    });
    // dockerd's handler wrote no status: Go's server wrote the 200 after AuthZRes
    expect(await fieldsFor('PUT', '/v1.41/containers/abc/archive?path=%2Ftmp', 200, { ...middleware, 'content-length': '0' })).toEqual({
      ResponseStatusCode: undefined,
      ResponseHeaders: headers,
    });
    const stat = { ...middleware, 'x-docker-container-path-stat': 'eyJuYW1lIjoidG1wIn0=' };
    expect(await fieldsFor('HEAD', '/v1.41/containers/abc/archive?path=%2Ftmp', 200, stat)).toEqual({
      ResponseStatusCode: undefined,
      ResponseHeaders: { ...headers, 'X-Docker-Container-Path-Stat': 'eyJuYW1lIjoidG1wIn0=' },
    });
    expect(await fieldsFor('POST', '/v1.41/exec/abc/resize?h=24&w=80', 200, middleware)).toEqual({
      ResponseStatusCode: undefined,
      ResponseHeaders: headers,
    });
  });

  it('no body for text answers; /_ping without a status', async () => {
    await authorizer.review!(accessRequest({ method: 'GET', uri: '/_ping' }), {
      statusCode: 200,
      headers: { 'content-type': 'text/plain; charset=utf-8', pragma: 'no-cache', 'api-version': '1.41' },
      body: new TextEncoder().encode('OK'),
    });
    expect(plugin.authzCalls()[0]).toEqual({
      phase: 'response',
      User: 'alice',
      UserAuthNMethod: 'TLS',
      RequestMethod: 'GET',
      RequestUri: '/_ping',
      ResponseHeaders: { 'Api-Version': '1.41', Pragma: 'no-cache' },
    });
  });

  it("denies an answer with the engine's text; a failure there is a 500", async () => {
    plugin.setRules([{ phase: 'response', uri: /\/info$/, msg: 'info leaks too much' }]);
    const request = accessRequest({ method: 'GET', uri: '/v1.41/info' });
    expect(await authorizer.review!(request, { statusCode: 200, headers: listHeaders, body: json({}) })).toEqual({
      allowed: false,
      reason: 'authorization denied by plugin test-authz: info leaks too much',
      rule: 'test-authz',
    });
    plugin.setMode('error');
    await expect(authorizer.review!(request, { statusCode: 200, headers: listHeaders, body: json({}) })).rejects.toThrow(
      'plugin test-authz failed with error: AuthZPlugin.AuthZRes: the policy engine is down',
    );
  });
});
