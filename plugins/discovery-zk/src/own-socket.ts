import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/**
 * Whether the TCP connection from loopback port `peerPort` to `listenPort` was opened by this
 * process (Linux: /proc/net/tcp maps the connection to a socket inode, /proc/self/fd lists ours).
 * Elsewhere it answers true: there is no cheap way to tell.
 */
export function openedByThisProcess(peerPort: number, listenPort: number): boolean {
  if (process.platform !== 'linux') return true;
  const inode = clientSocketInode(peerPort, listenPort);
  if (inode === undefined) return false;
  const target = `socket:[${inode}]`;
  return readdirSync('/proc/self/fd').some((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === target;
    } catch {
      return false;
    }
  });
}

const portOf = (address: string): number => parseInt(address.slice(address.indexOf(':') + 1), 16);

function clientSocketInode(peerPort: number, listenPort: number): string | undefined {
  const lines = readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1);
  for (const line of lines) {
    const fields = line.trim().split(/\s+/);
    if (fields.length < 10) continue;
    if (portOf(fields[1]!) === peerPort && portOf(fields[2]!) === listenPort) return fields[9];
  }
  return undefined;
}
