import type { Socket } from 'node:net';
import { asError, type SwarmError } from '../../errors.js';
import { ResponseReader, type ReadResponse } from './response-reader.js';

/** What a pipelined read needs of the engine's client. */
export interface PipelineLink {
  /** The engine's `Host` header. */
  readonly host: string;
  /** A fresh connection to the engine (TCP, TLS or unix socket); writes wait until it connects. */
  dial(): Socket;
  /** A failure on the way as the client's coded error (`outcome`: the call timed out or was cancelled). */
  failure(error: unknown, outcome: 'timeout' | 'cancelled' | undefined, timeoutMs: number): SwarmError;
}

/**
 * Per request: the engine's answer; the coded failure that left it unanswered; or `undefined` when
 * the engine answered some requests and then closed the connection (it does not keep connections
 * open, or went away meanwhile): those are for the caller to ask again, one by one.
 */
export type PipelinedResult = ReadResponse | SwarmError | undefined;

function requestHead(path: string, host: string, last: boolean): string {
  // the last request asks the engine to close, so the connection ends on its side once all is answered
  return `GET ${path} HTTP/1.1\r\nHost: ${host}\r\n${last ? 'Connection: close\r\n' : ''}\r\n`;
}

/**
 * GETs pipelined on one new connection: every request written at once (one write instead of one
 * per request, and one connection's work on the engine), the answers read back in order. Each
 * answer must come within `timeoutMs` of the one before (or of the start); `signal` cancels the
 * requests still unanswered.
 */
export function readPipelined(
  link: PipelineLink,
  paths: readonly string[],
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<PipelinedResult[]> {
  return new Promise((resolve) => {
    const results: PipelinedResult[] = new Array<PipelinedResult>(paths.length).fill(undefined);
    const reader = new ResponseReader();
    const socket = link.dial();
    let answered = 0;
    let outcome: 'timeout' | 'cancelled' | undefined;
    let settled = false;

    /** `error`: why the connection ended early (a timeout and a cancel give one too); none once all was answered or a close announced. */
    const finish = (error?: unknown): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', cancel);
      socket.destroy();
      // after some answers, a dropped connection leaves the rest to be asked again; before any (or on a timeout), they failed
      if (error !== undefined && (answered === 0 || outcome !== undefined)) {
        const failure = link.failure(error, outcome, timeoutMs);
        for (let index = answered; index < results.length; index++) results[index] = failure;
      }
      resolve(results);
    };
    const timedOut = (): void => {
      outcome = 'timeout';
      finish(asError('timeout'));
    };
    const timer = setTimeout(timedOut, timeoutMs);
    const cancel = (): void => {
      outcome = 'cancelled';
      finish(signal?.reason ?? asError('cancelled'));
    };
    signal?.addEventListener('abort', cancel, { once: true });

    const take = (answer: ReadResponse): void => {
      results[answered++] = answer;
      if (answered === results.length || answer.closes) finish();
    };
    socket.on('data', (chunk: Buffer) => {
      timer.refresh();
      let answers: ReadResponse[];
      try {
        answers = reader.push(chunk);
      } catch (error) {
        finish(error);
        return;
      }
      for (const answer of answers) if (!settled) take(answer);
    });
    socket.on('end', () => {
      const last = reader.end();
      if (last && !settled) take(last);
      if (!settled) finish(reader.midAnswer || answered === 0 ? asError('the engine closed the connection before answering') : undefined);
    });
    socket.on('error', (error) => finish(error));
    socket.on('close', () => finish(asError('connection closed')));

    socket.write(paths.map((path, index) => requestHead(path, link.host, index === paths.length - 1)).join(''), 'latin1');
  });
}
