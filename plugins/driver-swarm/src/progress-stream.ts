import type { IncomingMessage } from 'node:http';
import { ErrorCodes, SwarmError, type ProgressMessage } from '@swarm/plugin-sdk';

/** Forward each JSON progress line; reject when the engine reports an error in the stream. */
export function followProgress(response: IncomingMessage, onMessage: (message: ProgressMessage) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    let buffer = '';
    let failure: string | undefined;
    const handle = (line: string) => {
      if (line.trim() === '') return;
      try {
        const message = JSON.parse(line) as ProgressMessage;
        if (typeof message.error === 'string') failure = message.error;
        onMessage(message);
      } catch {
        onMessage({ stream: line });
      }
    };
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => {
      buffer += chunk;
      const lines = buffer.split('\n');
      buffer = lines.pop() ?? '';
      lines.forEach(handle);
    });
    response.on('error', reject);
    response.on('end', () => {
      handle(buffer);
      if (failure !== undefined) reject(new SwarmError(ErrorCodes.ENGINE_ERROR, failure));
      else resolve();
    });
  });
}
