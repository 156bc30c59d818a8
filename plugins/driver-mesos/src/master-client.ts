import { request, type IncomingMessage } from 'node:http';
import type { MasterAddress } from './master-info.js';
import type { Call } from './protocol.js';
import { MesosErrors } from './errors.js';

const SCHEDULER_PATH = '/api/v1/scheduler';
const MAX_REDIRECTS = 5;

/** A non-2xx answer of the master, with its status and text. */
export class MasterHttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
    master: MasterAddress,
  ) {
    super(`Mesos master ${master.host}:${master.port} answered ${status}${body ? `: ${body.trim()}` : ''}`);
  }
}

/** The address a 307 points to; `Location` is usually protocol-relative (`//host:port/path`). */
export function redirectTarget(location: string, from: MasterAddress): MasterAddress {
  const url = new URL(location, `http://${from.host}:${from.port}`);
  return { host: url.hostname, port: url.port ? Number(url.port) : 5050 };
}

interface Opened {
  response: IncomingMessage;
  master: MasterAddress;
}

function open(master: MasterAddress, call: Call, streamId: string | undefined, timeoutMs: number | undefined): Promise<IncomingMessage> {
  const body = JSON.stringify(call);
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    Accept: 'application/json',
    'Content-Length': String(Buffer.byteLength(body)),
  };
  if (streamId) headers['Mesos-Stream-Id'] = streamId;
  return new Promise((resolve, reject) => {
    const req = request({ host: master.host, port: master.port, method: 'POST', path: SCHEDULER_PATH, headers }, resolve);
    req.on('error', reject);
    if (timeoutMs !== undefined)
      req.setTimeout(timeoutMs, () => req.destroy(MesosErrors.masterTimedOut({ master: `${master.host}:${master.port}`, ms: timeoutMs })));
    req.end(body);
  });
}

async function readText(response: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of response) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** POST a call, following 307 redirects to the leading master. */
async function openFollowing(master: MasterAddress, call: Call, streamId: string | undefined, timeoutMs?: number): Promise<Opened> {
  let target = master;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    const response = await open(target, call, streamId, timeoutMs);
    const location = response.headers.location;
    if (response.statusCode === 307 && location) {
      response.resume();
      target = redirectTarget(location, target);
      continue;
    }
    const status = response.statusCode ?? 0;
    if (status < 200 || status >= 300) throw new MasterHttpError(status, await readText(response), target);
    return { response, master: target };
  }
  throw MesosErrors.masterRedirects({ master: `${master.host}:${master.port}` });
}

/** Send a non-SUBSCRIBE call on its own connection (the master answers 202). */
export async function sendCall(master: MasterAddress, call: Call, streamId: string): Promise<void> {
  const { response } = await openFollowing(master, call, streamId, 10_000);
  response.resume();
}

/** The long-lived SUBSCRIBE connection. */
export interface OpenStream {
  response: IncomingMessage;
  streamId: string;
  /** The master that answered (after redirects). */
  master: MasterAddress;
}

export async function openSubscription(master: MasterAddress, call: Call): Promise<OpenStream> {
  const { response, master: answered } = await openFollowing(master, call, undefined, 10_000);
  // The connection stays open for the stream: only the connect phase had a timeout.
  response.socket.setTimeout(0);
  const streamId = response.headers['mesos-stream-id'];
  if (typeof streamId !== 'string' || streamId === '') {
    response.destroy();
    throw MesosErrors.masterNoStreamId({ master: `${answered.host}:${answered.port}` });
  }
  return { response, streamId, master: answered };
}
