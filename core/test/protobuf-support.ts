/*
 * Protocol Buffers' wire format, written by hand as grpc-go's clients write it: the tests' own
 * encoder, apart from the manager's (protobuf-writer.ts), so that a mistake in one shows in the other.
 */

export function varint(value: number): Buffer {
  const bytes: number[] = [];
  let rest = value;
  while (rest >= 0x80) {
    bytes.push((rest % 0x80) | 0x80);
    rest = Math.floor(rest / 0x80);
  }
  bytes.push(rest);
  return Buffer.from(bytes);
}

/** A length-delimited field (wire type 2). */
export const bytesField = (number: number, value: Buffer): Buffer => Buffer.concat([varint(number * 8 + 2), varint(value.length), value]);
/** A string field. */
export const str = (number: number, value: string): Buffer => bytesField(number, Buffer.from(value, 'utf8'));
/** A varint field (wire type 0). */
export const varintField = (number: number, value: number): Buffer => Buffer.concat([varint(number * 8), varint(value)]);
/** One entry of a `map<string, string>` field. */
export const stringEntry = (number: number, key: string, value: string): Buffer =>
  bytesField(number, Buffer.concat([str(1, key), str(2, value)]));
