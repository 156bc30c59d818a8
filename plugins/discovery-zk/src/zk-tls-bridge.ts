import { createServer, isIP, type AddressInfo, type Server, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { type KvTlsMaterial } from '@swarm/plugin-sdk/helpers';
import { OwnConnections } from './own-socket.js';
import type { ZkEndpoint } from './zk-endpoint.js';
import { ZkErrors } from './errors.js';

const CLOSE_GRACE_MS = 2000;

/**
 * TLS to ZooKeeper's secureClientPort for node-zookeeper-client, which only dials plain TCP: one
 * loopback listener per store server, each connection piped into a TLS connection made with the
 * kv.* certificates. The client dials the listeners instead of the servers. A listener serves
 * only connections this process opened, so no other local process can use our certificate.
 */
export class ZkTlsBridge implements ZkEndpoint {
  readonly description: string;
  private readonly servers: Server[] = [];
  private readonly sockets = new Set<Socket>();
  private readonly sinks = new Set<(error: Error) => void>();
  private readonly listenPorts = new Set<number>();
  private readonly own = new OwnConnections(this.listenPorts);
  private ready: Promise<string> | undefined;

  constructor(
    private readonly hosts: readonly string[],
    private readonly tls: KvTlsMaterial,
  ) {
    this.description = `${hosts.join(',')} (TLS)`;
  }

  connectionString(): Promise<string> {
    this.ready ??= Promise.all(this.hosts.map((host) => this.listen(host))).then((ports) =>
      ports.map((port) => `127.0.0.1:${port}`).join(','),
    );
    return this.ready;
  }

  onFailure(sink: (error: Error) => void): () => void {
    this.sinks.add(sink);
    return () => this.sinks.delete(sink);
  }

  /** Stops listening; open connections get a moment to carry the clients' close-session requests. */
  close(): void {
    for (const server of this.servers) server.close();
    this.own.close();
    this.sinks.clear();
    const sockets = [...this.sockets];
    setTimeout(() => {
      for (const socket of sockets) socket.destroy();
    }, CLOSE_GRACE_MS).unref();
  }

  private listen(host: string): Promise<number> {
    const server = createServer((local) => void this.admit(local, host, server));
    this.servers.push(server);
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        server.unref();
        const port = (server.address() as AddressInfo).port;
        this.listenPorts.add(port);
        resolve(port);
      });
    });
  }

  /** Bridges a connection only when this process opened it: no other local process may use our certificate. */
  private async admit(local: Socket, host: string, server: Server): Promise<void> {
    local.pause();
    local.on('error', () => local.destroy());
    const listenPort = (server.address() as AddressInfo | null)?.port;
    if (listenPort === undefined || !(await this.own.isOurs(local, listenPort)) || local.destroyed) {
      local.destroy();
      return;
    }
    this.bridge(local, host);
    local.resume();
  }

  private bridge(local: Socket, host: string): void {
    const separator = host.lastIndexOf(':');
    const name = host.slice(0, separator).replace(/^\[|\]$/g, '');
    const remote = tlsConnect({
      host: name,
      port: Number(host.slice(separator + 1)),
      ca: this.tls.ca,
      cert: this.tls.cert,
      key: this.tls.key,
      servername: isIP(name) === 0 ? name : undefined,
    });
    this.sockets.add(local).add(remote);
    local.setNoDelay(true);
    remote.setNoDelay(true);
    local.pipe(remote).pipe(local);
    remote.on('error', (error: NodeJS.ErrnoException) => {
      // A system call error (refused, reset while connecting) is the network; anything else is TLS itself.
      const failure = error.syscall === undefined ? ZkErrors.tlsFailed : ZkErrors.tlsUnreachable;
      this.fail(failure({ host, reason: error.message }, { cause: error }));
      local.destroy();
    });
    local.on('error', () => remote.destroy());
    local.on('close', () => {
      remote.destroy();
      this.sockets.delete(local);
    });
    remote.on('close', () => {
      local.destroy();
      this.sockets.delete(remote);
    });
  }

  private fail(error: Error): void {
    for (const sink of [...this.sinks]) sink(error);
  }
}
