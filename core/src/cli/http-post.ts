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

/** The docker CLI's config folder: `$DOCKER_CONFIG`, else `~/.docker`. */
function dockerConfigDir(): string {
  return process.env['DOCKER_CONFIG'] || join(homedir(), '.docker');
}

/** A file's contents, or undefined when it does not exist (the docker CLI drops a default cert file that is absent). */
function readIfPresent(path: string): Buffer | undefined {
  try {
    return readFileSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * The docker CLI's TLS from its environment: with `DOCKER_TLS_VERIFY` set, `ca.pem` in
 * `DOCKER_CERT_PATH` (default `~/.docker`) and the client certificate `cert.pem`/`key.pem` when
 * they are there (the docker CLI connects without one when the default files are absent, as a
 * token client does), so that a manager knows the caller as `docker` would present them.
 */
function dockerTls(): { ca: Buffer; cert?: Buffer; key?: Buffer } | undefined {
  const verify = process.env['DOCKER_TLS_VERIFY'];
  if (verify === undefined || verify === '' || verify === '0') return undefined;
  const dir = process.env['DOCKER_CERT_PATH'] || dockerConfigDir();
  const [cert, key] = [readIfPresent(join(dir, 'cert.pem')), readIfPresent(join(dir, 'key.pem'))];
  return { ca: readFileSync(join(dir, 'ca.pem')), ...(cert && key ? { cert, key } : {}) };
}

/**
 * The headers the docker CLI adds to every request from its `config.json` (`HttpHeaders`), where a
 * token client keeps `Authorization: Bearer ...`: the explain is asked with the credential the
 * `docker run` it explains would carry.
 */
function dockerHttpHeaders(): Record<string, string> {
  const text = readIfPresent(join(dockerConfigDir(), 'config.json'));
  if (text === undefined) return {};
  let config: unknown;
  try {
    config = JSON.parse(text.toString('utf8'));
  } catch {
    return {};
  }
  const headers = (config as { HttpHeaders?: unknown } | null)?.HttpHeaders;
  if (headers === null || typeof headers !== 'object') return {};
  return Object.fromEntries(Object.entries(headers).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
}

/**
 * A TLS listener's refusal of the client during the handshake, in the docker CLI's words (Go's
 * `remote error: tls: <alert>`) rather than OpenSSL's; a connection reset before any answer while a
 * client certificate was offered is how a `--tlsverify` manager refuses one its CA did not sign.
 */
function tlsRefusal(error: NodeJS.ErrnoException, tls: { cert?: Buffer } | undefined): string | undefined {
  if (tls === undefined) return undefined;
  const alert = /^ERR_SSL_(?:TLSV13|TLSV1|SSLV3)_ALERT_([A-Z_]+)$/.exec(error.code ?? '')?.[1];
  if (alert !== undefined) return `remote error: tls: ${alert.toLowerCase().replaceAll('_', ' ')}`;
  if (error.code === 'ECONNRESET' && tls.cert !== undefined) {
    return `${error.message}: the manager closed the connection before answering, as a --tlsverify manager refuses a client certificate its CA did not sign`;
  }
  return undefined;
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
        headers: { ...dockerHttpHeaders(), 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) },
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
    req.on('error', (error) =>
      reject(CoreErrors.cliManagerUnreachable({ host, reason: tlsRefusal(error, tls) ?? error.message }, { cause: error })),
    );
    req.end(payload);
  });
}
