import { readFileSync } from 'node:fs';
import type { DiscoveryEntry, EngineEndpoint, TlsFiles } from '@swarm/plugin-sdk';
import { SwarmErrors } from './errors.js';

type TlsMaterial = NonNullable<EngineEndpoint['tls']>;

function read(path: string | undefined, what: string): Buffer | undefined {
  if (!path) return undefined;
  try {
    return readFileSync(path);
  } catch (error) {
    throw SwarmErrors.tlsFileUnreadable({ what, path, reason: error instanceof Error ? error.message : String(error) }, { cause: error });
  }
}

/** Load the PEM files once at start-up (not per engine, not per request). */
export function loadTlsMaterial(files: TlsFiles | undefined): TlsMaterial | undefined {
  if (!files || (!files.ca && !files.cert && !files.key)) return undefined;
  const material: TlsMaterial = { rejectUnauthorized: files.verify };
  const ca = read(files.ca, 'CA certificate');
  const cert = read(files.cert, 'certificate');
  const key = read(files.key, 'key');
  if (ca) material.ca = ca;
  if (cert) material.cert = cert;
  if (key) material.key = key;
  return material;
}

export function engineEndpoint(entry: DiscoveryEntry, tls: TlsMaterial | undefined): EngineEndpoint {
  return tls ? { protocol: 'https', host: entry.host, port: entry.port, tls } : { protocol: 'http', host: entry.host, port: entry.port };
}
