import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const exec = promisify(execFile);

export interface TestCertificates {
  dir: string;
  ca: string;
  /** For the engines' listeners and the manager (its listener, and its client certificate towards the engines). */
  serverCert: string;
  serverKey: string;
  /** For the docker CLI talking to the manager. */
  clientCert: string;
  clientKey: string;
}

/**
 * A throw-away CA with one certificate valid for every loopback address given (`testbed.sh --tls`
 * gives all engines of a folder the same `server-cert.pem`) and a client certificate.
 */
export async function makeTestCertificates(dir: string, ips: readonly string[]): Promise<TestCertificates> {
  const openssl = (...args: string[]) => exec('openssl', args, { cwd: dir });
  await openssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '1',
    '-subj',
    '/CN=mesos-test-ca',
    '-keyout',
    'ca-key.pem',
    '-out',
    'ca.pem',
  );
  const extensions = {
    server: `subjectAltName=${ips.map((ip) => `IP:${ip}`).join(',')}\nextendedKeyUsage=serverAuth,clientAuth\n`,
    client: 'extendedKeyUsage=clientAuth\n',
  };
  for (const [name, ext] of Object.entries(extensions)) {
    writeFileSync(join(dir, `${name}.ext`), ext);
    await openssl(
      'req',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-subj',
      `/CN=mesos-test-${name}`,
      '-keyout',
      `${name}-key.pem`,
      '-out',
      `${name}.csr`,
    );
    await openssl(
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca-key.pem',
      '-CAcreateserial',
      '-days',
      '1',
      '-extfile',
      `${name}.ext`,
      '-out',
      `${name}-cert.pem`,
    );
  }
  const path = (file: string) => join(dir, file);
  return {
    dir,
    ca: path('ca.pem'),
    serverCert: path('server-cert.pem'),
    serverKey: path('server-key.pem'),
    clientCert: path('client-cert.pem'),
    clientKey: path('client-key.pem'),
  };
}
