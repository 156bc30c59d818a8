// The exec/attach stream protocol over WebSocket (apimachinery wsstream and the kubelet's
// remotecommand server): subprotocols v5.channel.k8s.io (adds the client's close signal
// 255+channel), v4.channel.k8s.io (error channel carries a Status JSON), the base64 variants and
// the pre-v4 channel.k8s.io. Each binary message starts with the channel byte: 0 stdin,
// 1 stdout, 2 stderr, 3 error, 4 resize ({"Width":..,"Height":..}).
import { PassThrough, Writable } from 'node:stream';
import type { WebSocket } from 'ws';
import type { StreamIO } from './node-agents.js';
import type { Status } from './status.js';

export const SUPPORTED_PROTOCOLS = [
  'v5.channel.k8s.io',
  'v4.channel.k8s.io',
  'v4.base64.channel.k8s.io',
  'channel.k8s.io',
  'base64.channel.k8s.io',
];
const STDIN = 0;
const STDOUT = 1;
const STDERR = 2;
const ERROR = 3;
const RESIZE = 4;
const CLOSE_SIGNAL = 255;

/** The server picks the first protocol of its own preference that the client offers. */
export function chooseProtocol(offered: Set<string>): string | undefined {
  if (offered.size === 0) return '';
  return SUPPORTED_PROTOCOLS.find((protocol) => offered.has(protocol));
}

export interface StreamOptions {
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
  tty: boolean;
}

export interface ChannelStreamsDeps {
  readonly socket: WebSocket;
  readonly protocol: string;
  readonly options: StreamOptions;
}

export class ChannelStreams {
  private readonly socket: WebSocket;

  readonly io: StreamIO;
  private readonly base64: boolean;
  private readonly version: number;
  private readonly stdin: PassThrough | undefined;
  private readonly resizeListeners: Array<(size: { width: number; height: number }) => void> = [];
  private resizeBuffer = '';
  private finished = false;

  constructor({ socket, protocol, options }: ChannelStreamsDeps) {
    this.socket = socket;
    this.base64 = protocol.includes('base64');
    this.version = protocol.startsWith('v5') ? 5 : protocol.startsWith('v4') ? 4 : 1;
    this.stdin = options.stdin ? new PassThrough() : undefined;
    const writer = (channel: number) =>
      new Writable({
        write: (chunk: Buffer, _encoding, callback) => {
          this.send(channel, chunk);
          callback();
        },
      });
    this.io = {
      tty: options.tty,
      stdin: this.stdin,
      stdout: options.stdout ? writer(STDOUT) : undefined,
      // with a TTY stderr is merged into stdout, as the kubelet does
      stderr: options.stderr && !options.tty ? writer(STDERR) : undefined,
      onResize: (listener) => this.resizeListeners.push(listener),
      onClose: (listener) => socket.on('close', listener),
    };
    socket.on('message', (data: Buffer, isBinary: boolean) => this.receive(isBinary ? data : Buffer.from(data.toString())));
    socket.on('close', () => this.stdin?.end());
    // the first (empty) message tells the client the streams are ready
    this.send(options.stdout ? STDOUT : options.stderr && !options.tty ? STDERR : ERROR, Buffer.alloc(0));
  }

  private receive(data: Buffer): void {
    if (data.length === 0) return;
    if (this.version >= 5 && data[0] === CLOSE_SIGNAL) {
      if (data.length === 2 && data[1] === STDIN) this.stdin?.end();
      return;
    }
    let channel = data[0]!;
    let payload = data.subarray(1);
    if (this.base64) {
      channel -= 48;
      payload = Buffer.from(payload.toString(), 'base64');
    }
    if (channel === STDIN && this.stdin && !this.stdin.writableEnded) this.stdin.write(payload);
    if (channel === RESIZE) this.resize(payload.toString());
  }

  private resize(text: string): void {
    this.resizeBuffer += text;
    // sizes arrive as a JSON stream: decode every complete object
    for (;;) {
      const end = this.resizeBuffer.indexOf('}');
      if (end < 0) return;
      const piece = this.resizeBuffer.slice(0, end + 1);
      this.resizeBuffer = this.resizeBuffer.slice(end + 1);
      try {
        const size = JSON.parse(piece) as { Width?: number; Height?: number };
        for (const listener of this.resizeListeners) listener({ width: size.Width ?? 0, height: size.Height ?? 0 });
      } catch {
        /* a malformed size is ignored, as the kubelet's decoder stops on it */
      }
    }
  }

  private send(channel: number, data: Buffer): void {
    if (this.socket.readyState !== this.socket.OPEN) return;
    if (this.base64) this.socket.send(String.fromCharCode(48 + channel) + data.toString('base64'));
    else this.socket.send(Buffer.concat([Buffer.from([channel]), data]), { binary: true });
  }

  /** Ends the session: the status on the error channel (v4+: a Status JSON; older: the message), then close. */
  finish(status: Omit<Status, 'kind' | 'apiVersion' | 'code'> & { code?: number }): void {
    if (this.finished) return;
    this.finished = true;
    if (this.version >= 4) {
      const body: Record<string, unknown> = { metadata: {}, status: status.status };
      if (status.message) body.message = status.message;
      if (status.reason) body.reason = status.reason;
      if (status.details) body.details = status.details;
      if (status.code) body.code = status.code;
      this.send(ERROR, Buffer.from(JSON.stringify(body)));
    } else if (status.status !== 'Success') {
      this.send(ERROR, Buffer.from(status.message ?? ''));
    }
    this.stdin?.end();
    this.socket.close(1000);
  }
}

export const exitStatus = (exitCode: number, command: string[]) =>
  exitCode === 0
    ? { metadata: {}, status: 'Success' as const }
    : {
        metadata: {},
        status: 'Failure' as const,
        message: `command terminated with non-zero exit code: error executing command [${command.join(' ')}], exit code ${exitCode}`,
        reason: 'NonZeroExitCode',
        details: { causes: [{ reason: 'ExitCode', message: String(exitCode) }] },
      };
