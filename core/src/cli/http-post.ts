import { request } from 'node:http';
import { CoreErrors } from '../errors.js';

/** Where to reach a manager: `tcp://h:p`, `h:p` or `unix:///path`. */
export function managerTarget(host: string): { socketPath: string } | { host: string; port: number } {
  if (host.startsWith('unix://')) return { socketPath: host.slice('unix://'.length) };
  const address = host.replace(/^(tcp|http):\/\//, '');
  const index = address.lastIndexOf(':');
  if (index === -1) throw CoreErrors.cliManagerAddress({ host });
  return { host: address.slice(0, index).replace(/^\[|\]$/g, ''), port: Number(address.slice(index + 1)) };
}

/** POST a JSON body and parse a JSON answer; a non-2xx answer becomes an error with its message. */
export function postJson(host: string, path: string, body: unknown): Promise<unknown> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        ...managerTarget(host),
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
            reject(CoreErrors.cliManagerAnswered({ status: res.statusCode ?? 0, message }));
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
