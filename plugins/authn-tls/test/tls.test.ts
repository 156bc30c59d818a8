import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, createServer, type TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCodes, Tokens, isSwarmError } from '@swarm/plugin-sdk';
import type { AuthenticationRequest, AuthenticatorFactory, PeerCertificate } from '@swarm/plugin-sdk/access';
import { noopLogger, pluginProviders } from '@swarm/plugin-sdk/testing';
import plugin, { NO_COMMON_NAME } from '@swarm/authn-tls';
import { makeCertificates } from '../../../test/harness/certificates.js';

const factory = pluginProviders(plugin).get<AuthenticatorFactory>(Tokens.Authenticator, 'tls');
const settings = { options: {}, configDir: '/', logger: noopLogger };

let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'swarm-authn-tls-'));
  await makeCertificates(dir, {
    ca: '/CN=swarm-test-ca',
    certificates: [
      { name: 'server', subject: '/CN=127.0.0.1', ips: ['127.0.0.1'], usage: ['serverAuth'] },
      { name: 'alice', subject: '/CN=alice/O=dev/O=ops', usage: ['clientAuth'] },
      { name: 'bob', subject: '/CN=bob', usage: ['clientAuth'] },
      // docker-machine's client certificates look like this: an organisation, no CN
      { name: 'machine', subject: '/O=machine-user', usage: ['clientAuth'] },
    ],
  });
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const pem = (file: string): Buffer => readFileSync(join(dir, file));

/** The leaf as the host hands it to authenticators (Node.js gives one O as a string, several as a list). */
function peerCertificates(socket: TLSSocket): PeerCertificate[] {
  const leaf = socket.getPeerCertificate();
  if (!socket.authorized || leaf.raw === undefined) return [];
  const subject = leaf.subject as unknown as Record<string, string | string[] | undefined>;
  return [{ subject: { CN: [subject['CN'] ?? []].flat()[0], O: [subject['O'] ?? []].flat() }, raw: leaf.raw }];
}

/**
 * The chain a real TLS server verified when `client` connected with its certificate; without one,
 * what a listener that asks for certificates but does not insist sees.
 */
async function handshake(client: string | undefined): Promise<PeerCertificate[]> {
  const tls = { key: pem('server-key.pem'), cert: pem('server-cert.pem'), ca: pem('ca.pem') };
  const server = createServer({ ...tls, requestCert: true, rejectUnauthorized: client !== undefined });
  const seen = new Promise<PeerCertificate[]>((resolve) =>
    server.once('secureConnection', (socket: TLSSocket) => {
      resolve(peerCertificates(socket));
      socket.end();
    }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const credentials = client === undefined ? {} : { key: pem(`${client}-key.pem`), cert: pem(`${client}-cert.pem`) };
  const socket = connect({ host: '127.0.0.1', port, ca: pem('ca.pem'), ...credentials });
  socket.on('error', () => undefined);
  try {
    return await seen;
  } finally {
    socket.destroy();
    server.close();
  }
}

const request = (peerCertificates: readonly PeerCertificate[]): AuthenticationRequest => ({
  method: 'GET',
  uri: '/v1.41/containers/json',
  headers: {},
  peerCertificates,
  remoteAddress: '127.0.0.1',
});

describe('tls authenticator', () => {
  it('is registered as authn tls', () => {
    expect(pluginProviders(plugin).names(Tokens.Authenticator)).toEqual(['tls']);
  });

  it('names the caller by the subject CN and puts them in its O values, method TLS', async () => {
    const authenticator = await factory(settings);
    const chain = await handshake('alice');
    expect(chain.length).toBeGreaterThanOrEqual(1);
    expect(await authenticator.authenticate(request(chain))).toEqual({ user: 'alice', groups: ['dev', 'ops'], method: 'TLS' });
  });

  it('gives a certificate without O no groups', async () => {
    const authenticator = await factory(settings);
    expect(await authenticator.authenticate(request(await handshake('bob')))).toEqual({ user: 'bob', groups: [], method: 'TLS' });
  });

  it('refuses a certificate without CN, saying why', async () => {
    const authenticator = await factory(settings);
    const result = await authenticator.authenticate(request(await handshake('machine')));
    expect(result).toEqual({ failed: true, reason: NO_COMMON_NAME });
    expect(NO_COMMON_NAME).toMatch(/common name \(CN\)/);
  });

  it('leaves a request without a client certificate to the next authenticator', async () => {
    const authenticator = await factory(settings);
    const chain = await handshake(undefined);
    expect(chain).toEqual([]);
    expect(await authenticator.authenticate(request(chain))).toBeUndefined();
  });

  it('reads only the leaf of the chain', async () => {
    const authenticator = await factory(settings);
    const leaf = { subject: { CN: 'carol', O: ['qa'] }, raw: new Uint8Array() };
    const ca = { subject: { CN: 'swarm-test-ca', O: ['admins'] }, raw: new Uint8Array() };
    expect(await authenticator.authenticate(request([leaf, ca]))).toEqual({ user: 'carol', groups: ['qa'], method: 'TLS' });
  });

  it('refuses options, which it would not read', () => {
    let thrown: unknown;
    try {
      factory({ ...settings, options: { path: 'x' } });
    } catch (error) {
      thrown = error;
    }
    expect(isSwarmError(thrown, ErrorCodes.CONFIG_INVALID)).toBe(true);
    expect((thrown as Error).message).toBe('authn "tls" takes no options, got "path"');
  });
});
