import { existsSync, unlinkSync, chmodSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { createServer as createHttpsServer } from 'node:https';
import type { Socket, AddressInfo } from 'node:net';
import { type TlsFiles } from '@swarm/plugin-sdk';
import type { Dispatcher } from './dispatcher.js';
import { serverTlsOptions } from './tls.js';
import { CoreErrors } from '../errors.js';

export type ListenAddress = { kind: 'tcp'; host: string; port: number } | { kind: 'unix'; path: string };

/** `tcp://host:port`, `host:port`, `:port` or `unix:///path`, as `-H` takes them. */
export function parseListenAddress(value: string): ListenAddress {
  if (value.startsWith('unix://')) {
    const path = value.slice('unix://'.length);
    if (!path.startsWith('/')) throw CoreErrors.unixSocketNotAbsolute({ value });
    return { kind: 'unix', path };
  }
  const rest = value.startsWith('tcp://') ? value.slice('tcp://'.length) : value;
  const match = /^(\[[^\]]+\]|[^:/]*):(\d+)\/?$/.exec(rest);
  if (!match || /^[a-z]+:\/\//.test(rest)) throw CoreErrors.listenAddressInvalid({ value });
  const port = Number(match[2]);
  if (port > 65535) throw CoreErrors.listenPortOutOfRange({ value });
  return { kind: 'tcp', host: match[1] === '' ? '0.0.0.0' : match[1]!.replace(/^\[|\]$/g, ''), port };
}

export interface ListenerLimits {
  headersTimeoutMs: number;
  keepAliveTimeoutMs: number;
}

/** One listening server with its open sockets (so close() does not wait for streams). */
export interface Listener {
  readonly address: string;
  /** Takes no new connection and closes the idle kept-alive ones; requests in flight go on. */
  stopAccepting(): void;
  /** Stops accepting and closes every connection left. */
  close(): Promise<void>;
}

function makeServer(tls: TlsFiles | undefined, limits: ListenerLimits): Server {
  const options = {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: 0,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    connectionsCheckingInterval: Math.min(1000, limits.headersTimeoutMs),
  };
  // Half-open sockets let a hijacked client close its stdin (TLS close_notify) and still read the output.
  return tls ? createHttpsServer({ ...options, ...serverTlsOptions(tls), allowHalfOpen: true }) : createHttpServer(options);
}

export async function listen(
  target: ListenAddress,
  tls: TlsFiles | undefined,
  limits: ListenerLimits,
  dispatcher: Dispatcher,
): Promise<Listener> {
  const server = makeServer(tls, limits);
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  server.on('secureConnection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  server.on('request', dispatcher.onRequest);
  server.on('upgrade', dispatcher.onUpgrade);
  // dockerd answers CONNECT like any unknown route; without a listener Node would drop the socket.
  server.on('connect', (_req: IncomingMessage, socket: Duplex) => {
    const body = JSON.stringify({ message: CoreErrors.pageNotFound().message });
    socket.on('error', () => socket.destroy());
    socket.end(
      `HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (!socket.writable) return socket.destroy();
    const status =
      error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? '408 Request Timeout'
        : error.code === 'HPE_HEADER_OVERFLOW'
          ? '431 Request Header Fields Too Large'
          : '400 Bad Request';
    const body = JSON.stringify({
      message: error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 'timed out waiting for the request headers' : `bad request: ${error.message}`,
    });
    socket.end(
      `HTTP/1.1 ${status}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });

  if (target.kind === 'unix' && existsSync(target.path)) unlinkSync(target.path);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    if (target.kind === 'unix') server.listen(target.path, resolve);
    else server.listen(target.port, target.host, resolve);
  });
  let address: string;
  if (target.kind === 'unix') {
    chmodSync(target.path, 0o660);
    address = `unix://${target.path}`;
  } else {
    const bound = server.address() as AddressInfo;
    address = `tcp://${target.host.includes(':') ? `[${target.host}]` : target.host}:${bound.port}`;
  }
  let closed: Promise<void> | undefined;
  const stopAccepting = () => {
    closed ??= new Promise<void>((resolve) => {
      server.close(() => {
        if (target.kind === 'unix' && existsSync(target.path)) unlinkSync(target.path);
        resolve();
      });
    });
    server.closeIdleConnections();
  };
  return {
    address,
    stopAccepting,
    close: async () => {
      stopAccepting();
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}
