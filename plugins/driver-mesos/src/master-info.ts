import type { MasterInfoJson } from './protocol.js';
import { MesosErrors } from './errors.js';

/** Where to reach a Mesos master. */
export interface MasterAddress {
  host: string;
  port: number;
}

/** The legacy `ip` field: a uint32 whose least significant byte is the first octet. */
export function ipFromUint32(ip: number): string {
  return [ip & 0xff, (ip >>> 8) & 0xff, (ip >>> 16) & 0xff, (ip >>> 24) & 0xff].join('.');
}

/**
 * The address in a MasterInfo (as the master writes it to ZooKeeper as `json.info_<seq>`):
 * `address.{ip,hostname,port}` when present, else the legacy `ip`/`hostname`/`port` fields.
 */
export function masterAddressFromInfo(info: MasterInfoJson): MasterAddress {
  const address = info.address;
  if (address && typeof address.port === 'number') {
    const host = address.ip ?? address.hostname;
    if (host) return { host, port: address.port };
  }
  if (typeof info.port !== 'number') throw MesosErrors.masterInfoInvalid({ reason: 'has no port' });
  if (typeof info.ip === 'number') return { host: ipFromUint32(info.ip), port: info.port };
  if (info.hostname) return { host: info.hostname, port: info.port };
  throw MesosErrors.masterInfoInvalid({ reason: 'has no address' });
}

/** Parse the JSON a master stores in ZooKeeper. */
export function parseMasterInfo(json: string): MasterAddress {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch (error) {
    throw MesosErrors.masterInfoInvalid({ reason: `is not JSON: ${(error as Error).message}` });
  }
  if (typeof parsed !== 'object' || parsed === null) throw MesosErrors.masterInfoInvalid({ reason: 'is not a JSON object' });
  return masterAddressFromInfo(parsed as MasterInfoJson);
}

const MASTER_ENTRY = /^json\.info_(\d+)$/;

/** The leader among a ZooKeeper group's children: the `json.info_<seq>` with the lowest sequence. */
export function leaderEntry(children: readonly string[]): string | undefined {
  let best: { name: string; seq: number } | undefined;
  for (const name of children) {
    const match = MASTER_ENTRY.exec(name);
    if (!match) continue;
    const seq = Number(match[1]);
    if (!best || seq < best.seq) best = { name, seq };
  }
  return best?.name;
}
