import type { IncomingMessage } from 'node:http';
import type { DockerEvent } from '@swarm/plugin-sdk';

/** Split a Docker event stream (one JSON object per line) into events. */
export function readEventStream(response: IncomingMessage, onEvent: (event: DockerEvent) => void, onEnd: (error?: Error) => void): void {
  let buffer = '';
  let ended = false;
  const finish = (error?: Error) => {
    if (ended) return;
    ended = true;
    onEnd(error);
  };
  response.setEncoding('utf8');
  response.on('data', (chunk: string) => {
    buffer += chunk;
    let newline = buffer.indexOf('\n');
    while (newline >= 0) {
      const line = buffer.slice(0, newline).trim();
      buffer = buffer.slice(newline + 1);
      if (line !== '') {
        try {
          onEvent(JSON.parse(line) as DockerEvent);
        } catch {
          // a torn or foreign line: skip it, the periodic refresh catches up
        }
      }
      newline = buffer.indexOf('\n');
    }
  });
  response.on('end', () => finish());
  response.on('close', () => finish());
  response.on('error', (error) => finish(error));
}
