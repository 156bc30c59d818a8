import { readFileSync } from 'node:fs';
import type { TlsOptions } from 'node:tls';
import { ErrorCodes, SwarmError, type TlsFiles } from '@swarm/plugin-sdk';

function read(path: string, what: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    throw new SwarmError(ErrorCodes.CONFIG_INVALID, `cannot read the TLS ${what} ${path}: ${(error as Error).message}`, { cause: error });
  }
}

/** Server TLS settings: TLS 1.2+, client certificates required (and checked against the CA) with verify. */
export function serverTlsOptions(files: TlsFiles): TlsOptions {
  if (!files.cert || !files.key) throw new SwarmError(ErrorCodes.CONFIG_INVALID, 'TLS needs a certificate and a key (--tlscert, --tlskey)');
  if (files.verify && !files.ca)
    throw new SwarmError(ErrorCodes.CONFIG_INVALID, '--tlsverify needs a CA certificate (--tlscacert) to check clients against');
  return {
    cert: read(files.cert, 'certificate'),
    key: read(files.key, 'key'),
    ...(files.ca ? { ca: read(files.ca, 'CA certificate') } : {}),
    requestCert: files.verify,
    rejectUnauthorized: files.verify,
    minVersion: 'TLSv1.2',
  };
}
