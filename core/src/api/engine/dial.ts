import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import type { EngineEndpoint } from '@swarm/plugin-sdk';

/** The Host header an engine expects (unix sockets have no host name). */
export function engineHostHeader(endpoint: EngineEndpoint): string {
  return endpoint.socketPath ? 'docker' : `${endpoint.host}:${endpoint.port}`;
}

/** A fresh connection to an engine (plain, TLS or unix socket); writes are queued until it connects. */
export function dialEngine(endpoint: EngineEndpoint): Socket {
  if (endpoint.socketPath) return netConnect({ path: endpoint.socketPath, allowHalfOpen: true });
  if (endpoint.protocol === 'https') {
    return tlsConnect({ host: endpoint.host, port: endpoint.port, ...endpoint.tls, servername: endpoint.host });
  }
  return netConnect({ host: endpoint.host, port: endpoint.port, allowHalfOpen: true });
}

/** The event after which bytes flow on a socket from dialEngine. */
export function connectedEvent(endpoint: EngineEndpoint): 'connect' | 'secureConnect' {
  return endpoint.protocol === 'https' && !endpoint.socketPath ? 'secureConnect' : 'connect';
}
