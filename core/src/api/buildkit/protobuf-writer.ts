import { readFields, type ProtoField } from './protobuf-fields.js';

/**
 * Protocol Buffers' wire format, written: the few shapes the manager changes in BuildKit's messages
 * (control.proto's and gateway.proto's `map<string, string>` attributes, a `map<string, bytes>`
 * metadata). A map entry is a length-delimited field whose message holds the key (1) and the value
 * (2), both length-delimited; a message is its fields one after another, so a field is replaced by
 * leaving out its bytes and appending the new ones (gogo/protobuf reads fields in any order).
 */

function varint(value: number): Buffer {
  const bytes: number[] = [];
  let rest = value;
  while (rest >= 0x80) {
    bytes.push((rest % 0x80) | 0x80);
    rest = Math.floor(rest / 0x80);
  }
  bytes.push(rest);
  return Buffer.from(bytes);
}

/** One length-delimited field (wire type 2): key, length, bytes. */
export function lengthDelimitedField(number: number, bytes: Buffer): Buffer {
  return Buffer.concat([varint(number * 8 + 2), varint(bytes.length), bytes]);
}

/** One entry of a `map<string, string>` or `map<string, bytes>` field. */
export function mapEntry(number: number, key: string, value: string | Buffer): Buffer {
  const entry = Buffer.concat([
    lengthDelimitedField(1, Buffer.from(key, 'utf8')),
    lengthDelimitedField(2, typeof value === 'string' ? Buffer.from(value, 'utf8') : value),
  ]);
  return lengthDelimitedField(number, entry);
}

/** The fields of a message written back as they were read. */
export function writeFields(fields: readonly ProtoField[]): Buffer {
  return Buffer.concat(fields.map((field) => field.raw));
}

/**
 * `message` with the entries of its map field `number` replaced: every entry whose key `drop`
 * answers true for, or that `set` gives a value, is left out, and `set`'s entries are appended.
 * The other fields keep their bytes and their order.
 */
export function withMapEntries(
  message: Buffer,
  number: number,
  set: ReadonlyMap<string, string | Buffer>,
  drop: (key: string) => boolean = () => false,
): Buffer {
  const kept = readFields(message).filter((field) => {
    if (field.number !== number || field.wireType !== 2) return true;
    const key = readFields(field.bytes).filter((part) => part.number === 1 && part.wireType === 2);
    const name = key.length === 0 ? '' : key[key.length - 1]!.bytes.toString('utf8');
    return !set.has(name) && !drop(name);
  });
  return Buffer.concat([writeFields(kept), ...[...set].map(([key, value]) => mapEntry(number, key, value))]);
}

/** `message` with its length-delimited field `number` (a sub-message) replaced by what `change` makes of each occurrence. */
export function withMessages(message: Buffer, number: number, change: (bytes: Buffer) => Buffer): Buffer {
  return Buffer.concat(
    readFields(message).map((field) =>
      field.number === number && field.wireType === 2 ? lengthDelimitedField(number, change(field.bytes)) : field.raw,
    ),
  );
}
