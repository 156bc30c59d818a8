import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { CoreErrors } from '../errors.js';

/** Where to reach a manager: `tcp://h:p`, `h:p` or `unix:///path`. */
export function managerTarget(host: string): { socketPath: string } | { host: string; port: number } {
  if (host.startsWith('unix://')) return { socketPath: host.slice('unix://'.length) };
  const address = host.replace(/^(tcp|http):\/\//, '');
  const index = address.lastIndexOf(':');
  if (index === -1) throw CoreErrors.cliManagerAddress({ host });
  return { host: address.slice(0, index).replace(/^\[|\]$/g, ''), port: Number(address.slice(index + 1)) };
}

/**
 * The docker CLI's client certificate from its environment: with `DOCKER_TLS_VERIFY` set,
 * `ca.pem`, `cert.pem` and `key.pem` in `DOCKER_CERT_PATH` (default `~/.docker`), so that a manager
 * with `--tlsverify` knows the caller as `docker` would present them.
 */
function dockerTls(): { ca: Buffer; cert: Buffer; key: Buffer } | undefined {
  const verify = process.env['DOCKER_TLS_VERIFY'];
  if (verify === undefined || verify === '' || verify === '0') return undefined;
  const dir = process.env['DOCKER_CERT_PATH'] || join(homedir(), '.docker');
  return { ca: readFileSync(join(dir, 'ca.pem')), cert: readFileSync(join(dir, 'cert.pem')), key: readFileSync(join(dir, 'key.pem')) };
}

/** POST a JSON body and parse a JSON answer; a non-2xx answer becomes an error with its message. */
export function postJson(host: string, path: string, body: unknown): Promise<unknown> {
  const payload = JSON.stringify(body);
  const tls = dockerTls();
  const send = tls ? httpsRequest : request;
  return new Promise((resolve, reject) => {
    const req = send(
      {
        ...managerTarget(host),
        ...(tls ?? {}),
        path,
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if ((res.statusCode ?? 500) >= 300) {
            let message = text.trim();
            try {
              message = (JSON.parse(text) as { message?: string }).message ?? message;
            } catch {
              // not JSON: keep the text
            }
            reject(
              CoreErrors.cliManagerAnswered(
                { status: res.statusCode ?? 0, message },
                { details: { status: res.statusCode ?? 0, message } },
              ),
            );
            return;
          }
          try {
            resolve(JSON.parse(text));
          } catch (error) {
            reject(error);
          }
        });
      },
    );
    req.on('error', (error) => reject(CoreErrors.cliManagerUnreachable({ host, reason: error.message }, { cause: error })));
    req.end(payload);
  });
}
