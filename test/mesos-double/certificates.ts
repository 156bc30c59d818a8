import { join } from 'node:path';
import { makeCertificates } from '../harness/certificates.js';

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
  await makeCertificates(dir, {
    ca: '/CN=mesos-test-ca',
    certificates: [
      { name: 'server', subject: '/CN=mesos-test-server', ips, usage: ['serverAuth', 'clientAuth'] },
      { name: 'client', subject: '/CN=mesos-test-client', usage: ['clientAuth'] },
    ],
  });
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
