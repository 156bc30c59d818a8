import type { IncomingMessage } from 'node:http';
import type { ProgressMessage } from '@swarm/plugin-sdk/docker';
import { readJsonLines } from '@swarm/plugin-sdk/helpers';
import { SwarmErrors } from './errors.js';

/** Forward each JSON progress line; reject when the engine reports an error in the stream. */
export function followProgress(response: IncomingMessage, onMessage: (message: ProgressMessage) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    let failure: string | undefined;
    readJsonLines(response, {
      value: (value) => {
        const message = value as ProgressMessage;
        if (typeof message.error === 'string') failure = message.error;
        onMessage(message);
      },
      malformed: (line) => onMessage({ stream: line }),
      end: (error) => {
        if (error) reject(error);
        else if (failure !== undefined) reject(SwarmErrors.progressFailed({ message: failure }));
        else resolve();
      },
    });
  });
}
