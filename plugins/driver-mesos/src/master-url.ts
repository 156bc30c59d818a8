import type { SwarmError } from '@swarm/plugin-sdk';
import { MesosErrors } from './errors.js';

/** How the master is found: through ZooKeeper, or at a fixed address. */
export type MasterLocation = { kind: 'zk'; servers: string; path: string; auth?: string } | { kind: 'direct'; host: string; port: number };

const DEFAULT_MASTER_PORT = 5050;

function invalid(discovery: string, why: string): SwarmError {
  return MesosErrors.masterAddressInvalid({ discovery, why });
}

/** `zk://[user:pass@]h1:2181,h2:2181/mesos`, `mesos://host:5050` or `host:5050`. */
export function parseMasterLocation(discovery: string): MasterLocation {
  const trimmed = discovery.trim();
  if (trimmed.startsWith('zk://')) {
    let rest = trimmed.slice('zk://'.length);
    let auth: string | undefined;
    const at = rest.lastIndexOf('@', rest.indexOf('/') < 0 ? rest.length : rest.indexOf('/'));
    if (at >= 0) {
      auth = rest.slice(0, at);
      rest = rest.slice(at + 1);
    }
    const slash = rest.indexOf('/');
    if (slash <= 0) throw invalid(discovery, 'expected zk://host:port[,host:port]/path');
    const servers = rest.slice(0, slash);
    const path = rest.slice(slash).replace(/\/+$/, '') || '/';
    return auth === undefined ? { kind: 'zk', servers, path } : { kind: 'zk', servers, path, auth };
  }
  const hostPort = trimmed.startsWith('mesos://') ? trimmed.slice('mesos://'.length) : trimmed;
  const match = /^([^:/]+)(?::(\d+))?\/?$/.exec(hostPort);
  if (!match) throw invalid(discovery, 'expected zk://..., mesos://host:port or host:port');
  return { kind: 'direct', host: match[1]!, port: match[2] ? Number(match[2]) : DEFAULT_MASTER_PORT };
}
