/*
 * Connection failures worded as Go's net/http words them, so `plugin NAME failed with error: ...`
 * reads as dockerd's: `Post "http://plugin.moby.localhost/AuthZPlugin.AuthZReq": dial unix
 * /run/docker/plugins/opa.sock: connect: connection refused`.
 */

/** strerror texts of the errors a dial meets (Go prints the system's words). */
const ERRNO_TEXT: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ENOENT: 'no such file or directory',
  EACCES: 'permission denied',
  ENOTSOCK: 'socket operation on non-socket',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'no route to host',
  ENETUNREACH: 'network is unreachable',
  ECONNRESET: 'connection reset by peer',
};

interface SystemError extends Error {
  code?: string;
  syscall?: string;
}

/** `dial unix PATH` or `dial tcp HOST:PORT`: what Go names the dial in its error. */
export type DialTarget = { readonly network: 'unix'; readonly path: string } | { readonly network: 'tcp'; readonly hostPort: string };

/** The part after `Post "URL": ` for a request that got no answer. */
export function goTransportError(error: SystemError, target: DialTarget): string {
  const text = error.code === undefined ? undefined : ERRNO_TEXT[error.code];
  if (error.syscall === 'connect' && text !== undefined) {
    const address = target.network === 'unix' ? target.path : target.hostPort;
    return `dial ${target.network} ${address}: connect: ${text}`;
  }
  // the plugin closed the connection before answering: Go's client reports EOF
  if (error.code === 'ECONNRESET' || error.message === 'socket hang up') return 'EOF';
  return error.message;
}

/** Go's `url.Error` text for a POST: `Post "URL": ERR`. */
export function goUrlError(url: string, reason: string): string {
  return `Post ${JSON.stringify(url)}: ${reason}`;
}
