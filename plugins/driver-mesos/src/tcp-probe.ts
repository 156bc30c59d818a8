import { connect } from 'node:net';

/** True when one of `host:port[,host:port]` accepts a TCP connection within `timeoutMs`. */
export async function anyReachable(servers: string, timeoutMs = 1000): Promise<boolean> {
  const attempts = servers.split(',').map((server) => {
    const [host, port] = server.trim().split(':');
    return new Promise<boolean>((resolve) => {
      const socket = connect({ host: host ?? '127.0.0.1', port: Number(port ?? 2181) });
      const done = (reachable: boolean) => {
        socket.destroy();
        resolve(reachable);
      };
      socket.setTimeout(timeoutMs, () => done(false));
      socket.once('connect', () => done(true));
      socket.once('error', () => done(false));
    });
  });
  return (await Promise.all(attempts)).some(Boolean);
}
