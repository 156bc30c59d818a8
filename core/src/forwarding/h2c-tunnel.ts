import {
  connect,
  constants,
  createServer,
  type ClientHttp2Session,
  type IncomingHttpHeaders,
  type OutgoingHttpHeaders,
  type ServerHttp2Session,
  type ServerHttp2Stream,
} from 'node:http2';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex, Transform } from 'node:stream';
import type { EngineClient } from '@swarm/plugin-sdk/helpers';
import { answerGrpcError, grpcMessageText, GrpcStatus } from './grpc-messages.js';
import { CoreErrors } from '../errors.js';

/** dockerd's answer when it switches `/grpc` or `/session` to HTTP/2 (moby's router/grpc and router/session). */
const SWITCH_TO_H2C = 'HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n';

/** How long the engine may take to switch its `/grpc` connection. */
const DIAL_TIMEOUT_MS = 15_000;

// HTTP/2 forbids connection-specific headers; pseudo-headers are set per side.
const NOT_FORWARDED = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'host', 'http2-settings']);

function forwardedHeaders(headers: IncomingHttpHeaders): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || name.startsWith(':') || NOT_FORWARDED.has(name)) continue;
    out[name] = value;
  }
  return out;
}

/**
 * An HTTP/2 client session on the engine's `/grpc` (BuildKit's control API), opened as the docker
 * CLI opens it: `POST /grpc` asking `Upgrade: h2c`, HTTP/2 once the engine switched protocols.
 * Any other answer fails the dial.
 */
export function dialEngineGrpc(engine: EngineClient, path: string): Promise<ClientHttp2Session> {
  return dialEngineH2c(engine, path, {}).then((socket) => {
    const session = connect('http://engine', { createConnection: () => socket });
    session.on('error', () => undefined);
    return session;
  });
}

/** The engine's connection once it switched `path` to HTTP/2 (the docker CLI's `POST` with `Upgrade: h2c`). */
function dialEngineH2c(engine: EngineClient, path: string, headers: OutgoingHttpHeaders): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const request = engine.request({
      method: 'POST',
      path,
      headers: { ...headers, connection: 'Upgrade', upgrade: 'h2c', 'content-length': '0' },
    });
    const timer = setTimeout(() => request.destroy(CoreErrors.engineDidNotSwitch({ path, answer: 'no answer in time' })), DIAL_TIMEOUT_MS);
    request.on('upgrade', (_answer: IncomingMessage, socket: Socket, early: Buffer) => {
      clearTimeout(timer);
      if (early.length > 0) socket.unshift(early);
      // gRPC's small frames (a call's headers, a status update) go out at once, not held for an ACK
      socket.setNoDelay(true);
      resolve(socket);
    });
    request.on('response', (answer: IncomingMessage) => {
      clearTimeout(timer);
      answer.resume();
      reject(CoreErrors.engineDidNotSwitch({ path, answer: `it answered ${answer.statusCode ?? 0}` }));
    });
    request.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    request.end();
  });
}

/**
 * Answers an upgraded request as dockerd answers `/grpc`: switches the client's connection to
 * HTTP/2 and serves it here, each stream (one gRPC call) handed to `onStream`. The manager is the
 * client's HTTP/2 peer, so each call goes only where `onStream` sends it. Resolves once the
 * connection closes.
 */
export function serveH2c(
  client: Duplex,
  rest: Buffer,
  onStream: (stream: ServerHttp2Stream, headers: IncomingHttpHeaders) => void,
  signal?: AbortSignal,
): Promise<void> {
  return new Promise((resolve) => {
    const server = createServer();
    let session: ServerHttp2Session | undefined;
    const stop = () => session?.close();
    server.on('session', (opened: ServerHttp2Session) => {
      session = opened;
      opened.on('error', () => undefined);
      opened.once('close', () => {
        signal?.removeEventListener('abort', stop);
        resolve();
      });
    });
    server.on('stream', (stream: ServerHttp2Stream, headers: IncomingHttpHeaders, _flags: number, raw: string[]) =>
      onStream(stream, distinctHeaders(headers, raw)),
    );
    client.on('error', () => undefined);
    client.once('close', () => {
      if (!session) resolve();
    });
    signal?.addEventListener('abort', stop, { once: true });
    // A TLS connection that negotiated no ALPN protocol would be taken for HTTP/1.1; this one was switched to HTTP/2 by Upgrade.
    if ('alpnProtocol' in client && client.alpnProtocol === false) Object.assign(client, { alpnProtocol: 'h2c' });
    // HTTP/2 takes the connection's handle over only once the switch is written: a write still in
    // progress on a TLS connection handed to it aborts the process (a failed assertion in Node).
    client.write(SWITCH_TO_H2C, (error) => {
      if (error || client.destroyed) {
        client.destroy();
        resolve();
        return;
      }
      if (rest.length > 0) client.unshift(rest);
      if ('setNoDelay' in client && typeof client.setNoDelay === 'function') (client as Socket).setNoDelay(true);
      server.emit('connection', client);
    });
  });
}

/**
 * One gRPC call passed on to the engine's session as it came: its headers (the path and the
 * client's metadata), its body (`body` when the manager read it whole to judge it, else the
 * client's stream), and back the engine's headers, messages and trailers (`grpc-status`).
 * `onStatus` gets the call's final status.
 */
export function relayGrpcCall(
  stream: ServerHttp2Stream,
  headers: IncomingHttpHeaders,
  upstream: ClientHttp2Session,
  body?: Buffer,
  onStatus?: (status: string | undefined) => void,
  judge?: Transform,
): void {
  if (stream.destroyed) return;
  const call = upstream.request({ ...forwardedHeaders(headers), ':method': 'POST', ':path': String(headers[':path'] ?? '/') });
  let status: string | undefined;
  call.on('response', (answer: IncomingHttpHeaders) => {
    const out: OutgoingHttpHeaders = { ...forwardedHeaders(answer), ':status': answer[':status'] ?? 200 };
    if (call.endAfterHeaders) {
      status = String(answer['grpc-status'] ?? '');
      if (!stream.destroyed) stream.respond(out, { endStream: true });
      return;
    }
    if (stream.destroyed) return;
    stream.respond(out, { waitForTrailers: true });
    stream.once('wantTrailers', () => stream.sendTrailers(trailers ?? { 'grpc-status': String(GrpcStatus.UNAVAILABLE) }));
    if (!judge) {
      call.pipe(stream);
      return;
    }
    // the answer passes through `judge`, which may refuse it: the call then ends with that refusal
    judge.once('error', (error: Error) => {
      trailers = { 'grpc-status': String(GrpcStatus.PERMISSION_DENIED), 'grpc-message': grpcMessageText(error.message) };
      call.unpipe(judge);
      if (!call.closed) call.close(constants.NGHTTP2_CANCEL);
      if (!stream.writableEnded) stream.end();
    });
    call.pipe(judge).pipe(stream);
  });
  let trailers: OutgoingHttpHeaders | undefined;
  call.on('trailers', (answer: IncomingHttpHeaders) => {
    status = String(answer['grpc-status'] ?? '');
    trailers ??= forwardedHeaders(answer);
  });
  call.once('close', () => {
    onStatus?.(status);
    if (!stream.headersSent) answerGrpcError(stream, GrpcStatus.UNAVAILABLE, 'the engine closed the call');
    else if (!stream.writableEnded && trailers === undefined) stream.close(constants.NGHTTP2_INTERNAL_ERROR);
  });
  call.on('error', () => undefined);
  stream.on('error', () => undefined);
  stream.once('close', () => {
    if (!call.closed) call.close(constants.NGHTTP2_CANCEL);
  });
  if (body) {
    stream.resume();
    call.end(body);
  } else {
    stream.pipe(call);
  }
}

/**
 * A call's headers with each repeated one as the list of its values: Node joins them into one
 * text, and gRPC metadata lists (the session's `followpaths`, `include-patterns`) are read value
 * by value.
 */
function distinctHeaders(headers: IncomingHttpHeaders, raw: readonly string[] | undefined): IncomingHttpHeaders {
  if (!raw) return headers;
  const lists = new Map<string, string[]>();
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    lists.set(name, [...(lists.get(name) ?? []), raw[i + 1]!]);
  }
  const out: IncomingHttpHeaders = { ...headers };
  for (const [name, values] of lists) if (values.length > 1 && !name.startsWith(':')) out[name] = values;
  return out;
}

/**
 * BuildKit's `/session` relayed call by call: the client asked the manager to switch its
 * connection to HTTP/2, and on it the client serves (its files, its credentials) while the engine
 * calls. The manager switches the engine's `/session` (with the client's session headers), serves
 * the engine's calls there, and passes each to the client's connection, where it is the HTTP/2
 * client; `answerOf` may put a judge between a call's answer and the engine. Resolves once either
 * side closes.
 */
export async function relaySession(
  client: Duplex,
  rest: Buffer,
  engine: EngineClient,
  path: string,
  headers: OutgoingHttpHeaders,
  answerOf: (headers: IncomingHttpHeaders) => Transform | undefined,
  signal?: AbortSignal,
): Promise<void> {
  const engineSocket = await dialEngineH2c(engine, path, headers);
  await new Promise<void>((resolve) => {
    let finished = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      signal?.removeEventListener('abort', finish);
      engineSocket.destroy();
      client.destroy();
      resolve();
    };
    // a manager that stops ends its sessions, as it ends its /grpc connections
    if (signal?.aborted) {
      finish();
      return;
    }
    signal?.addEventListener('abort', finish, { once: true });
    engineSocket.once('close', finish);
    client.once('close', finish);
    client.on('error', () => undefined);
    engineSocket.on('error', () => undefined);
    if ('alpnProtocol' in client && client.alpnProtocol === false) Object.assign(client, { alpnProtocol: 'h2c' });
    client.write(SWITCH_TO_H2C, (error) => {
      if (error || client.destroyed) {
        finish();
        return;
      }
      if (rest.length > 0) client.unshift(rest);
      if ('setNoDelay' in client && typeof client.setNoDelay === 'function') (client as Socket).setNoDelay(true);
      const toClient = connect('http://client', { createConnection: () => client });
      toClient.on('error', () => undefined);
      toClient.once('close', finish);
      const server = createServer();
      server.on('session', (opened: ServerHttp2Session) => {
        opened.on('error', () => undefined);
        opened.once('close', finish);
      });
      server.on('stream', (stream: ServerHttp2Stream, streamHeaders: IncomingHttpHeaders, _flags: number, raw: string[]) => {
        const call = distinctHeaders(streamHeaders, raw);
        relayGrpcCall(stream, call, toClient, undefined, undefined, answerOf(call));
      });
      // as for a client's /grpc: a TLS connection that negotiated no ALPN protocol would be taken for HTTP/1.1
      if ('alpnProtocol' in engineSocket && (engineSocket as { alpnProtocol?: unknown }).alpnProtocol === false) {
        Object.assign(engineSocket, { alpnProtocol: 'h2c' });
      }
      server.emit('connection', engineSocket);
    });
  });
}
