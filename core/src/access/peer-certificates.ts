import type { TLSSocket, DetailedPeerCertificate } from 'node:tls';
import type { Socket } from 'node:net';
import type { PeerCertificate } from '@swarm/plugin-sdk/access';

function values(field: string | string[] | undefined): string[] {
  if (field === undefined) return [];
  return Array.isArray(field) ? field : [field];
}

/**
 * The client's verified certificate chain, leaf first; empty without TLS, without a client
 * certificate, or when the listener did not verify it (`--tls` without `--tlsverify`: a certificate
 * nobody checked names nobody).
 */
// A connection's certificates do not change: read once per socket (parsing the chain is not free).
const read = new WeakMap<Socket, readonly PeerCertificate[]>();

export function peerCertificates(socket: Socket | null | undefined): readonly PeerCertificate[] {
  if (!socket) return [];
  let chain = read.get(socket);
  if (!chain) {
    chain = readChain(socket);
    read.set(socket, chain);
  }
  return chain;
}

function readChain(socket: Socket): PeerCertificate[] {
  const tls = socket as TLSSocket;
  if (typeof tls.getPeerCertificate !== 'function' || !tls.authorized) return [];
  const chain: PeerCertificate[] = [];
  let certificate: DetailedPeerCertificate | undefined = tls.getPeerCertificate(true);
  const seen = new Set<DetailedPeerCertificate>();
  while (certificate && certificate.raw && !seen.has(certificate)) {
    seen.add(certificate);
    const subject = certificate.subject as unknown as Record<string, string | string[] | undefined> | undefined;
    chain.push({ subject: { CN: values(subject?.CN)[0], O: values(subject?.O) }, raw: certificate.raw });
    certificate = certificate.issuerCertificate;
  }
  return chain;
}
