import { readFileSync } from 'node:fs';
import { ErrorCodes, SwarmError, type DiscoveryEntry, type EngineEndpoint, type TlsFiles } from '@swarm/plugin-sdk';

type TlsMaterial = NonNullable<EngineEndpoint['tls']>;

function read(path: string | undefined, what: string): Buffer | undefined {
  if (!path) return undefined;
  try {
    return readFileSync(path);
  } catch (error) {
    throw new SwarmError(
      ErrorCodes.CONFIG_INVALID,
      `cannot read the TLS ${what} ${path}: ${error instanceof Error ? error.message : String(error)}`,
    );
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
