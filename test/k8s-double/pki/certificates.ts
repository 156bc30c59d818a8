// The cluster's throw-away PKI, made with openssl at start: a CA, the API server's serving
// certificate (the names and IPs a real one carries) and client certificates whose CN is the
// user name and O the groups, as the API server's x509 authenticator reads them.
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const exec = promisify(execFile);

export interface KeyPair {
  cert: string;
  key: string;
  certFile: string;
  keyFile: string;
}

export interface ClusterPki {
  dir: string;
  ca: string;
  caFile: string;
  server: KeyPair;
  issueClient(user: string, groups?: readonly string[]): Promise<KeyPair>;
}

const escapeSubject = (value: string) => value.replace(/[/\\=+,]/g, (char) => `\\${char}`);

export async function createPki(dir: string, serverIps: readonly string[]): Promise<ClusterPki> {
  const openssl = (...args: string[]) => exec('openssl', args, { cwd: dir });
  await openssl('ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'ca-key.pem');
  await openssl('req', '-x509', '-new', '-key', 'ca-key.pem', '-days', '2', '-subj', '/CN=kubernetes', '-out', 'ca.pem');
  let serial = 0;
  const issue = async (name: string, subject: string, extensions: string): Promise<KeyPair> => {
    const keyFile = join(dir, `${name}-key.pem`);
    const certFile = join(dir, `${name}.pem`);
    writeFileSync(join(dir, `${name}.ext`), extensions);
    await openssl('ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', keyFile);
    await openssl('req', '-new', '-key', keyFile, '-subj', subject, '-out', `${name}.csr`);
    await openssl(
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca-key.pem',
      '-set_serial',
      String(++serial + Date.now()),
      '-days',
      '2',
      '-extfile',
      `${name}.ext`,
      '-out',
      certFile,
    );
    return { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8'), certFile, keyFile };
  };
  const names = ['kubernetes', 'kubernetes.default', 'kubernetes.default.svc', 'kubernetes.default.svc.cluster.local', 'localhost'];
  const ips = [...new Set(['127.0.0.1', '10.96.0.1', ...serverIps])];
  const server = await issue(
    'apiserver',
    '/CN=kube-apiserver',
    `subjectAltName=${[...names.map((n) => `DNS:${n}`), ...ips.map((ip) => `IP:${ip}`)].join(',')}\nextendedKeyUsage=serverAuth\nkeyUsage=digitalSignature,keyEncipherment\n`,
  );
  const caFile = join(dir, 'ca.pem');
  return {
    dir,
    ca: readFileSync(caFile, 'utf8'),
    caFile,
    server,
    issueClient: (user, groups = []) => {
      const subject = `${groups.map((g) => `/O=${escapeSubject(g)}`).join('')}/CN=${escapeSubject(user)}`;
      const file = `client-${user.replace(/[^A-Za-z0-9_.-]/g, '_')}`;
      return issue(file, subject, 'extendedKeyUsage=clientAuth\nkeyUsage=digitalSignature,keyEncipherment\n');
    },
  };
}
