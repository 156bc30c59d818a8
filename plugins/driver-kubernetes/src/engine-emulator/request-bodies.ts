import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { KubernetesErrors } from '../errors.js';

export function readBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > 1 << 20) req.destroy(KubernetesErrors.bodyTooLarge());
      else chunks.push(chunk);
    });
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8').trim();
      if (text === '') return resolve({});
      try {
        const parsed: unknown = JSON.parse(text);
        resolve(typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {});
      } catch {
        reject(KubernetesErrors.invalidBody({ why: 'invalid JSON body' }));
      }
    });
    req.on('error', reject);
  });
}

/** Reads Content-Length bytes of body from what came with the upgrade and then the socket; the rest stays for stdin. */
export async function readUpgradeBody(req: IncomingMessage, socket: Socket, head: Buffer): Promise<Record<string, unknown>> {
  const length = Number(req.headers['content-length'] ?? 0);
  let buffered = head;
  while (buffered.length < length) {
    const chunk = await new Promise<Buffer | undefined>((resolve) => {
      const onData = (data: Buffer) => {
        cleanup();
        resolve(data);
      };
      const onEnd = () => {
        cleanup();
        resolve(undefined);
      };
      const cleanup = () => {
        socket.off('data', onData);
        socket.off('end', onEnd);
        socket.off('close', onEnd);
      };
      socket.on('data', onData);
      socket.once('end', onEnd);
      socket.once('close', onEnd);
    });
    if (!chunk) break;
    buffered = Buffer.concat([buffered, chunk]);
  }
  socket.pause();
  const rest = buffered.subarray(length);
  if (rest.length > 0) socket.unshift(rest);
  const text = buffered.subarray(0, length).toString('utf8').trim();
  if (text === '') return {};
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
  } catch {
    throw KubernetesErrors.invalidBody({ why: 'invalid JSON body' });
  }
}
