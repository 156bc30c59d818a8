import type { OutgoingHttpHeaders } from 'node:http';
import type { Node, ProgressMessage } from '@swarm/plugin-sdk';
import type { ProgressStream } from '../progress-stream.js';
import { engineErrorMessage, engineRequest } from './endpoint-request.js';

export interface NodeCall {
  node: Node;
  path: string;
}

function parseLine(line: string): ProgressMessage {
  try {
    const parsed: unknown = JSON.parse(line);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed as ProgressMessage;
  } catch {
    // an engine line that is not JSON is passed on as plain status text
  }
  return { status: line };
}

/** One engine's JSON-lines progress answer, relayed line by line; resolves false when it reported an error. */
function relayOne(call: NodeCall, method: string, headers: OutgoingHttpHeaders, body: Buffer | undefined, progress: ProgressStream, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    const fail = (message: string) => {
      progress.writeFromNode(call.node, { error: message, errorDetail: { message } });
      resolve(false);
    };
    const request = engineRequest(call.node.endpoint()!, { method, path: call.path, headers: { ...headers, 'content-length': body?.length ?? 0 } });
    signal.addEventListener('abort', () => request.destroy(), { once: true });
    request.on('error', (error) => fail(error.message));
    request.on('response', (response) => {
      let text = '';
      let ok = response.statusCode === 200;
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        text += chunk;
        if (response.statusCode !== 200) return;
        const lines = text.split('\n');
        text = lines.pop() ?? '';
        for (const line of lines.filter((one) => one.trim() !== '')) {
          const message = parseLine(line);
          if (message.error !== undefined) ok = false;
          progress.writeFromNode(call.node, message);
        }
      });
      response.on('error', (error) => fail(error.message));
      response.on('end', () => {
        if (response.statusCode !== 200) {
          let parsed: unknown = text;
          try {
            parsed = JSON.parse(text) as unknown;
          } catch {
            // plain-text error
          }
          return fail(engineErrorMessage(parsed));
        }
        if (text.trim() !== '') progress.writeFromNode(call.node, parseLine(text));
        resolve(ok);
      });
    });
    request.end(body);
  });
}

/**
 * The same streaming call (plugin pull or upgrade) on several engines at once; every engine's
 * progress lines go to the client tagged with its node. Resolves whether all succeeded; `signal`
 * (the client leaving) stops the engines' calls.
 */
export async function relayProgressFromNodes(calls: readonly NodeCall[], method: string, headers: OutgoingHttpHeaders, body: Buffer | undefined, progress: ProgressStream, signal: AbortSignal): Promise<boolean> {
  const results = await Promise.all(calls.map((call) => relayOne(call, method, headers, body, progress, signal)));
  return results.every(Boolean);
}
