/**
 * Protocol Buffers' wire format, read as gogo/protobuf unmarshals it (BuildKit's messages): a
 * field is a varint key (number << 3 | wire type) and a value; unknown fields are skipped, a
 * scalar field given twice keeps its last value, a repeated or map field keeps every entry (a
 * map's later entry for a key wins). Malformed input throws.
 */

export interface ProtoField {
  readonly number: number;
  /** 0 varint, 1 fixed 64-bit, 2 length-delimited, 5 fixed 32-bit. */
  readonly wireType: number;
  /** A varint field's value (0 for the others; exact up to 2^53). */
  readonly value: number;
  /** The bytes of a length-delimited field; empty for the others. */
  readonly bytes: Buffer;
  /** The whole field as it was on the wire, key included (protobuf-writer.ts writes it back). */
  readonly raw: Buffer;
}

export class ProtobufError extends Error {}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function readVarint(buffer: Buffer, start: number): [value: number, next: number] {
  let value = 0;
  let scale = 1;
  for (let offset = start; offset < buffer.length && offset < start + 10; offset++) {
    const byte = buffer[offset]!;
    value += (byte & 0x7f) * scale;
    scale *= 128;
    if ((byte & 0x80) === 0) return [value, offset + 1];
  }
  throw new ProtobufError('a truncated varint');
}

/** Every field of one message, in order. */
export function readFields(buffer: Buffer): ProtoField[] {
  const fields: ProtoField[] = [];
  let offset = 0;
  while (offset < buffer.length) {
    const fieldStart = offset;
    const [key, afterKey] = readVarint(buffer, offset);
    const number = Math.floor(key / 8);
    const wireType = key % 8;
    if (number === 0) throw new ProtobufError('field number 0');
    switch (wireType) {
      case 0: {
        const [value, next] = readVarint(buffer, afterKey);
        offset = next;
        fields.push({ number, wireType, value, bytes: Buffer.alloc(0), raw: buffer.subarray(fieldStart, offset) });
        break;
      }
      case 1:
      case 5: {
        offset = afterKey + (wireType === 1 ? 8 : 4);
        if (offset > buffer.length) throw new ProtobufError('a truncated fixed-size field');
        fields.push({ number, wireType, value: 0, bytes: Buffer.alloc(0), raw: buffer.subarray(fieldStart, offset) });
        break;
      }
      case 2: {
        const [length, start] = readVarint(buffer, afterKey);
        offset = start + length;
        if (offset > buffer.length) throw new ProtobufError('a truncated length-delimited field');
        fields.push({ number, wireType, value: 0, bytes: buffer.subarray(start, offset), raw: buffer.subarray(fieldStart, offset) });
        break;
      }
      default:
        throw new ProtobufError(`wire type ${wireType}`);
    }
  }
  return fields;
}

function lengthDelimited(fields: readonly ProtoField[], number: number): Buffer[] {
  const out: Buffer[] = [];
  for (const field of fields) {
    if (field.number !== number) continue;
    if (field.wireType !== 2) throw new ProtobufError(`field ${number} is not length-delimited`);
    out.push(field.bytes);
  }
  return out;
}

export function text(bytes: Buffer): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new ProtobufError('a string that is not UTF-8');
  }
}

/** A string field: its last value, '' when absent. */
export function stringField(fields: readonly ProtoField[], number: number): string {
  const values = lengthDelimited(fields, number);
  return values.length === 0 ? '' : text(values[values.length - 1]!);
}

/** A repeated string field: every value. */
export function repeatedStrings(fields: readonly ProtoField[], number: number): string[] {
  return lengthDelimited(fields, number).map(text);
}

/** A repeated message field (or a message given in parts): each occurrence's bytes. */
export function messages(fields: readonly ProtoField[], number: number): Buffer[] {
  return lengthDelimited(fields, number);
}

/** A `map<string, string>` field: entries are messages of key (1) and value (2). */
export function stringMap(fields: readonly ProtoField[], number: number): Map<string, string> {
  const map = new Map<string, string>();
  for (const entry of lengthDelimited(fields, number)) {
    const parts = readFields(entry);
    map.set(stringField(parts, 1), stringField(parts, 2));
  }
  return map;
}

/** A varint field (an enum, a bool): its last value, 0 when absent. */
export function varintField(fields: readonly ProtoField[], number: number): number {
  let value = 0;
  for (const field of fields) if (field.number === number && field.wireType === 0) value = field.value;
  return value;
}

/** A `map<string, message>` field (`map<string, pb.Definition>`): each key with its message's bytes. */
export function messageMap(fields: readonly ProtoField[], number: number): Map<string, Buffer> {
  const map = new Map<string, Buffer>();
  for (const entry of lengthDelimited(fields, number)) {
    const parts = readFields(entry);
    map.set(stringField(parts, 1), messages(parts, 2).at(-1) ?? Buffer.alloc(0));
  }
  return map;
}
