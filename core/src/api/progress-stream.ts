import type { ServerResponse } from 'node:http';
import type { Node } from '@swarm/plugin-sdk';
import type { ProgressMessage } from '@swarm/plugin-sdk/docker';
import { describeError } from '../http/responses.js';

/** A JSON-lines progress answer (pull, import, load, push): one engine message per line. */
export class ProgressStream {
  constructor(private readonly res: ServerResponse) {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.flushHeaders();
  }

  get closed(): boolean {
    return this.res.destroyed || this.res.writableEnded;
  }

  write(message: ProgressMessage): void {
    if (!this.closed) this.res.write(`${JSON.stringify(message)}\n`);
  }

  /** An engine's message, tagged with the node it came from so fanned-out lines stay apart. */
  writeFromNode(node: Node, message: ProgressMessage): void {
    const id = typeof message.id === 'string' && message.id !== '' ? `${node.name}: ${message.id}` : node.name;
    this.write({ ...message, id });
  }

  /** Errors after the headers went out travel in-band, as the engine reports them. */
  fail(error: unknown): void {
    const { message } = describeError(error);
    this.write({ error: message, errorDetail: { message } });
    this.end();
  }

  end(): void {
    if (!this.closed) this.res.end();
  }
}
