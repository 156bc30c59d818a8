import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Node } from '@swarm/plugin-sdk';
import type { ProgressMessage } from '@swarm/plugin-sdk/docker';
import { ProgressStream } from './progress-stream.js';
import { engineMessage, readJsonLines, type EngineClient } from '@swarm/plugin-sdk/helpers';
import { CoreErrors } from '../errors.js';

export interface NodeCall {
  node: Node;
  engine: EngineClient;
  path: string;
}

interface Refusal {
  node: Node;
  status: number;
  message: string;
}

function isObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function errorLine(message: string): ProgressMessage {
  return { error: message, errorDetail: { message } };
}

/**
 * The progress answer of several engines. Its head waits for the first engine that accepts the
 * call, so that when every engine refuses, the client gets an error status as from one engine.
 */
class LazyProgress {
  private stream: ProgressStream | undefined;
  readonly refusals: Refusal[] = [];

  constructor(private readonly res: ServerResponse) {}

  get started(): boolean {
    return this.stream !== undefined;
  }

  line(node: Node, message: ProgressMessage): void {
    if (!this.stream) {
      this.stream = new ProgressStream(this.res);
      for (const refusal of this.refusals) this.stream.writeFromNode(refusal.node, errorLine(refusal.message));
    }
    this.stream.writeFromNode(node, message);
  }

  refuse(refusal: Refusal): void {
    if (this.stream) this.stream.writeFromNode(refusal.node, errorLine(refusal.message));
    else this.refusals.push(refusal);
  }

  end(): void {
    this.stream?.end();
  }
}

function readAll(response: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => (text += chunk));
    response.on('end', () => resolve(text));
    response.on('error', () => resolve(text));
  });
}

/** One engine's JSON-lines progress answer, relayed line by line. */
function relayOne(
  call: NodeCall,
  method: string,
  headers: OutgoingHttpHeaders,
  body: Buffer | undefined,
  progress: LazyProgress,
  signal: AbortSignal,
): Promise<void> {
  return new Promise((resolve) => {
    const refuse = (status: number, message: string) => {
      progress.refuse({ node: call.node, status, message });
      resolve();
    };
    const request = call.engine.request({
      method,
      path: call.path,
      headers: { ...headers, 'content-length': body?.length ?? 0 },
    });
    signal.addEventListener('abort', () => request.destroy(), { once: true });
    request.on('error', (error) => refuse(500, error.message));
    request.on('response', (response) => {
      const status = response.statusCode ?? 500;
      if (status !== 200) {
        void readAll(response).then((text) => refuse(status, engineMessage(text)));
        return;
      }
      readJsonLines(response, {
        value: (value) => progress.line(call.node, isObject(value) ? (value as ProgressMessage) : { status: JSON.stringify(value) }),
        // an engine line that is not JSON is passed on as plain status text
        malformed: (line) => progress.line(call.node, { status: line }),
        end: (error) => (error ? refuse(500, error.message) : resolve()),
      });
    });
    request.end(body);
  });
}

/**
 * The same streaming call (plugin pull or upgrade) on several engines at once; every engine's
 * progress lines go to the client tagged with its node, an engine's refusal as an error line.
 * When every engine refuses, this throws the error (one engine's message if they all agree) for
 * a Docker-format answer. `signal` (the client leaving) stops the engines' calls.
 */
export async function relayProgressFromNodes(
  calls: readonly NodeCall[],
  method: string,
  headers: OutgoingHttpHeaders,
  body: Buffer | undefined,
  res: ServerResponse,
  signal: AbortSignal,
): Promise<void> {
  const progress = new LazyProgress(res);
  await Promise.all(calls.map((call) => relayOne(call, method, headers, body, progress, signal)));
  if (progress.started || progress.refusals.length === 0) return progress.end();
  const messages = new Set(progress.refusals.map((refusal) => refusal.message));
  const message =
    messages.size === 1 ? [...messages][0]! : progress.refusals.map((refusal) => `${refusal.node.name}: ${refusal.message}`).join('; ');
  throw CoreErrors.enginesRefused({ message }, { httpStatus: progress.refusals[0]!.status });
}
