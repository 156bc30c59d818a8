import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

// Throw-away certificates for TLS tests, made with openssl (the same tool an operator would use), in
// a folder the test owns: a CA, and certificates it signs for the addresses and uses each test needs.
const run = promisify(execFile);

export type KeyUsage = 'serverAuth' | 'clientAuth';

export interface CertificateRequest {
  /** Files `<name>-key.pem` and `<name>-cert.pem`, unless `keyFile` / `certFile` name others. */
  name: string;
  /** `/CN=127.0.0.1` */
  subject: string;
  /** subjectAltName IP addresses (what a client checks a server's certificate against). */
  ips?: readonly string[];
  /** extendedKeyUsage; none given: the certificate carries no such extension. */
  usage?: readonly KeyUsage[];
  keyFile?: string;
  certFile?: string;
}

export interface CertificateOptions {
  /** The CA's subject (`/CN=swarm-test-ca`); it is written to `ca.pem` and `ca-key.pem`. */
  ca: string;
  certificates: readonly CertificateRequest[];
  /** Validity of every certificate (default 1). */
  days?: number;
}

const openssl = async (dir: string, args: readonly string[]): Promise<void> => {
  await run('openssl', [...args], { cwd: dir });
};

/** A certificate and its key, signed by itself (no CA): `cert.pem` and `key.pem` unless named. */
export async function selfSignedCertificate(
  dir: string,
  subject: string,
  files: { keyFile?: string; certFile?: string; days?: number } = {},
): Promise<void> {
  const [keyFile, certFile, days] = [files.keyFile ?? 'key.pem', files.certFile ?? 'cert.pem', String(files.days ?? 1)];
  await openssl(dir, [
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    days,
    '-subj',
    subject,
    '-keyout',
    keyFile,
    '-out',
    certFile,
  ]);
}

/** A CA in `dir` (`ca.pem`, `ca-key.pem`) and each certificate asked for, signed by it. */
export async function makeCertificates(dir: string, options: CertificateOptions): Promise<void> {
  const days = String(options.days ?? 1);
  await selfSignedCertificate(dir, options.ca, { keyFile: 'ca-key.pem', certFile: 'ca.pem', days: options.days });
  for (const request of options.certificates) {
    const keyFile = request.keyFile ?? `${request.name}-key.pem`;
    const certFile = request.certFile ?? `${request.name}-cert.pem`;
    const extensions = [
      ...(request.ips?.length ? [`subjectAltName=${request.ips.map((ip) => `IP:${ip}`).join(',')}`] : []),
      ...(request.usage?.length ? [`extendedKeyUsage=${request.usage.join(',')}`] : []),
    ];
    writeFileSync(join(dir, `${request.name}.ext`), `${extensions.join('\n')}\n`);
    await openssl(dir, [
      'req',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-subj',
      request.subject,
      '-keyout',
      keyFile,
      '-out',
      `${request.name}.csr`,
    ]);
    await openssl(dir, [
      'x509',
      '-req',
      '-in',
      `${request.name}.csr`,
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca-key.pem',
      '-CAcreateserial',
      '-days',
      days,
      '-extfile',
      `${request.name}.ext`,
      '-out',
      certFile,
    ]);
  }
}

/** The usual pair: a CA, a server certificate for 127.0.0.1 (`server-*.pem`) and a client one (`client-*.pem`). */
export const localServerAndClient = (dir: string): Promise<void> =>
  makeCertificates(dir, {
    ca: '/CN=swarm-test-ca',
    certificates: [
      { name: 'server', subject: '/CN=127.0.0.1', ips: ['127.0.0.1'], usage: ['serverAuth'] },
      { name: 'client', subject: '/CN=swarm-client', usage: ['clientAuth'] },
    ],
  });
