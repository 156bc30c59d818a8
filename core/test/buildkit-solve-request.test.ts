import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bytesField, str, stringEntry, varintField } from './protobuf-support.js';
import { readSolveRequest, readStatusRef, solvePlacementConfig } from '../dist/api/buildkit/solve-request.js';
import { ProtobufError } from '../dist/api/buildkit/protobuf-fields.js';
import { GrpcMessageError, unaryMessage } from '../dist/forwarding/grpc-messages.js';

const mapEntry = stringEntry;
const sourceOp = (identifier: string) => bytesField(3, str(1, identifier));
const definition = (...ops: Buffer[]) => bytesField(2, Buffer.concat(ops.map((op) => bytesField(1, op))));
function grpcFrame(message: Buffer, compressed = 0): Buffer {
  const prefix = Buffer.alloc(5);
  prefix[0] = compressed;
  prefix.writeUInt32BE(message.length, 1);
  return Buffer.concat([prefix, message]);
}

describe('a BuildKit Solve request as the manager reads it', () => {
  it('reads what docker buildx sends: the ref, session, frontend attrs, entitlements and exported names', () => {
    const message = Buffer.concat([
      str(1, 'ref1'),
      str(3, 'moby'),
      mapEntry(4, 'name', 'app:1,app:latest'),
      str(5, 'session1'),
      mapEntry(7, 'filename', 'Dockerfile'),
      mapEntry(7, 'build-arg:constraint:node', '=node2'),
      mapEntry(7, 'build-arg:STAMP', 'x=y'),
      mapEntry(7, 'label:team', 'a'),
      mapEntry(7, 'context:base', 'docker-image://base:2'),
      str(9, 'network.host'),
      varintField(11, 1),
    ]);
    const solve = readSolveRequest(message);
    expect(solve).toMatchObject({ ref: 'ref1', session: 'session1', entitlements: ['network.host'], names: ['app:1', 'app:latest'] });
    expect(solvePlacementConfig(solve)).toEqual({
      Image: 'app:1',
      Env: ['constraint:node==node2', 'STAMP=x=y', 'affinity:image==~base:2'],
      Labels: { team: 'a' },
    });
  });

  it("takes a definition's docker-image sources as soft image affinities", () => {
    const message = Buffer.concat([
      str(1, 'r'),
      definition(sourceOp('docker-image://docker.io/library/busybox:local'), sourceOp('local://context')),
    ]);
    expect(solvePlacementConfig(readSolveRequest(message)).Env).toEqual(['affinity:image==~docker.io/library/busybox:local']);
  });

  it('keeps the last value of a repeated scalar and of a repeated map key, as Go decodes them', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom(1, 5), fc.string()), { minLength: 1, maxLength: 8 }), (writes) => {
        const message = Buffer.concat(writes.map(([number, value]) => str(number, value)));
        const last = (number: number) => writes.filter(([n]) => n === number).at(-1)?.[1] ?? '';
        const solve = readSolveRequest(message);
        expect(solve.ref).toBe(last(1));
        expect(solve.session).toBe(last(5));
      }),
    );
    const solve = readSolveRequest(Buffer.concat([mapEntry(7, 'build-arg:A', '1'), mapEntry(7, 'build-arg:A', '2')]));
    expect(solvePlacementConfig(solve).Env).toEqual(['A=2']);
  });

  it('refuses what gogo/protobuf would not decode to the same message', () => {
    for (const malformed of [
      Buffer.from([0x0a, 0x05, 0x61]), // a string longer than the message
      Buffer.from([0x0b]), // wire type 3 (a group)
      Buffer.from([0x00, 0x01]), // field number 0
      Buffer.from([0x08, 0xff, 0xff]), // a truncated varint
      bytesField(1, Buffer.from([0xff, 0xfe])), // a string that is not UTF-8
    ]) {
      expect(() => readSolveRequest(malformed)).toThrow(ProtobufError);
    }
  });

  it('reads a Status request for its ref', () => {
    expect(readStatusRef(str(1, 'abc'))).toBe('abc');
  });
});

describe('the one message of a unary gRPC call', () => {
  it('is read from its 5-byte prefix, gzip included, and refused when the body is not exactly one message', () => {
    const message = str(1, 'ref');
    expect(unaryMessage(grpcFrame(message), undefined)).toEqual(message);
    expect(unaryMessage(grpcFrame(gzipSync(message), 1), 'gzip')).toEqual(message);
    for (const [body, encoding] of [
      [Buffer.concat([grpcFrame(message), grpcFrame(message)]), undefined],
      [grpcFrame(message).subarray(0, 7), undefined],
      [grpcFrame(message, 1), 'snappy'],
      [Buffer.alloc(3), undefined],
    ] as const) {
      expect(() => unaryMessage(body, encoding)).toThrow(GrpcMessageError);
    }
  });
});
