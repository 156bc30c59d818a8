import { readFileSync } from 'node:fs';
import type { TlsOptions } from 'node:tls';
import { type TlsFiles } from '@swarm/plugin-sdk';
import { CoreErrors } from '../errors.js';

function read(path: string, what: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    throw CoreErrors.tlsFileUnreadable({ what, path, reason: (error as Error).message }, { cause: error });
  }
}

/** Server TLS settings: TLS 1.2+, client certificates required (and checked against the CA) with verify. */
export function serverTlsOptions(files: TlsFiles): TlsOptions {
  if (!files.cert || !files.key) throw CoreErrors.tlsNeedsCertAndKey();
  if (files.verify && !files.ca) throw CoreErrors.tlsVerifyNeedsCa();
  return {
    cert: read(files.cert, 'certificate'),
    key: read(files.key, 'key'),
    ...(files.ca ? { ca: read(files.ca, 'CA certificate') } : {}),
    requestCert: files.verify,
    rejectUnauthorized: files.verify,
    minVersion: 'TLSv1.2',
  };
}
