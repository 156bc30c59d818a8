import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { Socket } from 'node:net';

/** How long a connection accepted on a listener may wait for its client side to be seen connecting. */
const MATCH_WAIT_MS = 2000;

/**
 * Tells the loopback connections this process opened from anybody else's, by watching its own
 * client sockets on Node's `net.client.socket` diagnostics channel: a connection accepted from
 * port P is ours when one of our sockets, bound to local port P, connected to that listener.
 * Nothing is read from /proc, so it works under systemd's `ProcSubset=pid` and in containers that
 * hide /proc/net.
 */
export class OwnConnections {
  /** Our client sockets still connecting. */
  private readonly connecting = new Set<Socket>();
  /** Our sockets connected to one of the listeners, by their local port, until matched or closed. */
  private readonly connected = new Map<number, Socket>();
  private readonly waiters = new Set<() => void>();
  private readonly onSocket = (message: unknown): void => {
    const socket = (message as { socket?: Socket }).socket;
    if (socket) this.watch(socket);
  };

  constructor(private readonly listenPorts: ReadonlySet<number>) {
    subscribe('net.client.socket', this.onSocket);
  }

  close(): void {
    unsubscribe('net.client.socket', this.onSocket);
    this.connecting.clear();
    this.connected.clear();
    for (const wake of [...this.waiters]) wake();
  }

  /** Whether `accepted` (a connection a listener accepted) was opened by this process to `listenPort`. */
  async isOurs(accepted: Socket, listenPort: number): Promise<boolean> {
    const peerPort = accepted.remotePort;
    if (peerPort === undefined || accepted.remoteAddress !== '127.0.0.1') return false;
    if (this.take(peerPort, listenPort)) return true;
    // The listener may hear of the connection before our client side does: wait for it, only
    // when one of our sockets is bound to that port and still connecting.
    if (![...this.connecting].some((socket) => socket.localPort === peerPort)) return false;
    const deadline = Date.now() + MATCH_WAIT_MS;
    while (Date.now() < deadline) {
      await this.nextChange(deadline - Date.now());
      if (this.take(peerPort, listenPort)) return true;
      if (![...this.connecting].some((socket) => socket.localPort === peerPort)) return this.take(peerPort, listenPort);
    }
    return false;
  }

  private take(peerPort: number, listenPort: number): boolean {
    const socket = this.connected.get(peerPort);
    if (!socket || socket.remotePort !== listenPort) return false;
    this.connected.delete(peerPort);
    return true;
  }

  private watch(socket: Socket): void {
    this.connecting.add(socket);
    socket.once('connect', () => {
      this.connecting.delete(socket);
      const port = socket.remotePort;
      if (socket.remoteAddress === '127.0.0.1' && port !== undefined && this.listenPorts.has(port) && socket.localPort !== undefined) {
        this.connected.set(socket.localPort, socket);
      }
      this.changed();
    });
    socket.once('close', () => {
      this.connecting.delete(socket);
      for (const [port, held] of this.connected) if (held === socket) this.connected.delete(port);
      this.changed();
    });
  }

  private changed(): void {
    for (const wake of [...this.waiters]) wake();
  }

  private nextChange(timeoutMs: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.waiters.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, Math.max(0, timeoutMs));
      this.waiters.add(wake);
    });
  }
}
