import { describe, expect, it } from 'vitest';
import { RecordIoDecoder, RecordIoError, encodeRecord } from '../src/recordio.js';

const frame = (text: string) => encodeRecord(text);

describe('RecordIO decoder', () => {
  it('decodes several records delivered in one chunk', () => {
    const decoder = new RecordIoDecoder();
    const chunk = Buffer.concat([frame('{"type":"HEARTBEAT"}'), frame('{"a":1}'), frame('')]);
    expect(decoder.push(chunk)).toEqual(['{"type":"HEARTBEAT"}', '{"a":1}', '']);
    expect(decoder.pending()).toBe(0);
  });

  it('reassembles a record split inside its length prefix and inside its body', () => {
    const decoder = new RecordIoDecoder();
    const bytes = frame('{"type":"SUBSCRIBED","subscribed":{"framework_id":{"value":"f-1"}}}');
    const out: string[] = [];
    for (let i = 0; i < bytes.length; i++) out.push(...decoder.push(bytes.subarray(i, i + 1)));
    expect(out).toEqual(['{"type":"SUBSCRIBED","subscribed":{"framework_id":{"value":"f-1"}}}']);
  });

  it('counts lengths in bytes and keeps multi-byte UTF-8 split across chunks intact', () => {
    const text = '{"message":"café ☃ 🚀"}';
    const bytes = frame(text);
    expect(bytes.toString('latin1').startsWith(`${Buffer.byteLength(text)}\n`)).toBe(true);
    const snowman = bytes.indexOf(Buffer.from('☃'));
    const decoder = new RecordIoDecoder();
    expect(decoder.push(bytes.subarray(0, snowman + 1))).toEqual([]);
    expect(decoder.push(bytes.subarray(snowman + 1))).toEqual([text]);
  });

  it('returns a record and keeps the start of the next one for later', () => {
    const decoder = new RecordIoDecoder();
    const both = Buffer.concat([frame('first'), frame('second')]);
    expect(decoder.push(both.subarray(0, 9))).toEqual(['first']);
    expect(decoder.push(both.subarray(9))).toEqual(['second']);
  });

  it('rejects a malformed length prefix', () => {
    expect(() => new RecordIoDecoder().push(Buffer.from('12x\n{}'))).toThrow(RecordIoError);
    expect(() => new RecordIoDecoder().push(Buffer.from('-1\n'))).toThrow(/malformed RecordIO length/);
    expect(() => new RecordIoDecoder().push(Buffer.from('123456789012345678901234'))).toThrow(RecordIoError);
  });
});
