import type { ServerHttp2Stream } from 'node:http2';
import { gunzipSync } from 'node:zlib';

/** gRPC's status codes the manager answers with itself (grpc/codes). */
export const GrpcStatus = {
  INVALID_ARGUMENT: 3,
  NOT_FOUND: 5,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  UNAVAILABLE: 14,
} as const;

/** The largest request message read whole (moby's gRPC server takes up to 16 MiB). */
export const MAX_GRPC_MESSAGE_BYTES = 16 * 1024 * 1024;

export class GrpcMessageError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The one message of a unary call's request body: a 5-byte prefix (compressed flag, big-endian
 * length) and the message. A body with more or less than exactly one message is refused: grpc-go
 * would read only the first, and what follows it is not what was read here.
 */
export function unaryMessage(body: Buffer, encoding: string | undefined): Buffer {
  if (body.length < 5) throw new GrpcMessageError(GrpcStatus.INVALID_ARGUMENT, 'the request carries no complete gRPC message');
  const compressed = body[0]!;
  const length = body.readUInt32BE(1);
  if (body.length !== 5 + length) throw new GrpcMessageError(GrpcStatus.INVALID_ARGUMENT, 'a unary call carries exactly one gRPC message');
  const message = body.subarray(5);
  if (compressed === 0) return message;
  if (compressed !== 1 || encoding !== 'gzip') {
    throw new GrpcMessageError(GrpcStatus.INVALID_ARGUMENT, `a message compressed with ${encoding ?? 'no named encoding'} is not read`);
  }
  return gunzipSync(message, { maxOutputLength: MAX_GRPC_MESSAGE_BYTES });
}

/** A request body read whole, up to the limit of one message. */
export function readWhole(stream: ServerHttp2Stream): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let length = 0;
    stream.on('data', (chunk: Buffer) => {
      length += chunk.length;
      if (length > MAX_GRPC_MESSAGE_BYTES + 5) {
        stream.removeAllListeners('data');
        reject(new GrpcMessageError(GrpcStatus.RESOURCE_EXHAUSTED, `a request message over ${MAX_GRPC_MESSAGE_BYTES} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    stream.once('end', () => resolve(Buffer.concat(chunks)));
    stream.once('error', reject);
  });
}

// grpc-message is percent-encoded: printable ASCII but `%` as is, everything else as %XX of its UTF-8 bytes.
export function grpcMessageText(message: string): string {
  let out = '';
  for (const byte of Buffer.from(message, 'utf8')) {
    out +=
      byte >= 0x20 && byte <= 0x7e && byte !== 0x25 ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** Ends a call with a gRPC status of the manager's own (a trailers-only answer, as grpc-go writes one). */
export function answerGrpcError(stream: ServerHttp2Stream, status: number, message: string): void {
  if (stream.destroyed || stream.closed) return;
  if (stream.headersSent) {
    stream.close();
    return;
  }
  stream.respond(
    { ':status': 200, 'content-type': 'application/grpc', 'grpc-status': String(status), 'grpc-message': grpcMessageText(message) },
    { endStream: true },
  );
}
