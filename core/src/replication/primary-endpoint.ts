import { readFileSync } from 'node:fs';
import type { EngineEndpoint, TlsFiles } from '@swarm/plugin-sdk';

/**
 * The primary's API as a proxy target. With TLS, a replica dials the primary with its own
 * certificate, as the primary requires the same client certificates as any client.
 */
export function primaryEndpoint(advertise: string, tls: TlsFiles | undefined): EngineEndpoint {
  const separator = advertise.lastIndexOf(':');
  const host = advertise.slice(0, separator).replace(/^\[|\]$/g, '');
  const port = Number(advertise.slice(separator + 1));
  if (!tls) return { protocol: 'http', host, port };
  return {
    protocol: 'https',
    host,
    port,
    tls: {
      ca: tls.ca ? readFileSync(tls.ca) : undefined,
      cert: tls.cert ? readFileSync(tls.cert) : undefined,
      key: tls.key ? readFileSync(tls.key) : undefined,
      rejectUnauthorized: tls.verify,
    },
  };
}
