import type { EngineEndpoint } from '@swarm/plugin-sdk';
import { EngineClient } from '@swarm/plugin-sdk/helpers';

/** The API front's own JSON calls (inspect, exec create, plugin listings) may take this long. */
const CALL_TIMEOUT_MS = 30_000;

function endpointKey(endpoint: EngineEndpoint): string {
  return endpoint.socketPath ?? `${endpoint.protocol}://${endpoint.host}:${endpoint.port}`;
}

/**
 * The engine clients of one API server (one deployment): its proxied requests and calls reuse
 * kept-alive connections per engine, and two deployments in one process never share one.
 */
export class EngineClients {
  private readonly clients = new Map<string, EngineClient>();

  of(endpoint: EngineEndpoint): EngineClient {
    const key = endpointKey(endpoint);
    let client = this.clients.get(key);
    if (!client) {
      client = new EngineClient(endpoint, { timeoutMs: CALL_TIMEOUT_MS });
      this.clients.set(key, client);
    }
    return client;
  }

  /** Close every connection (the server stops). */
  close(): void {
    for (const client of this.clients.values()) client.close();
    this.clients.clear();
  }
}
