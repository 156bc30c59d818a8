/**
 * Incremental decoder of Mesos RecordIO (`<byte length>\n<record>`, see docs/recordio.md).
 * Records may be split across chunks anywhere, including inside the length prefix or inside a
 * multi-byte UTF-8 sequence, so bytes are buffered and decoded only once a record is complete.
 */
export class RecordIoError extends Error {}

const NEWLINE = 0x0a;
/** The length prefix of a sane record never needs more digits than this. */
const MAX_LENGTH_DIGITS = 20;

export class RecordIoDecoder {
  private buffered: Buffer = Buffer.alloc(0);

  /** Feed a chunk; returns the records it completed, in order. Throws RecordIoError on a bad length. */
  push(chunk: Buffer | Uint8Array): string[] {
    this.buffered = this.buffered.length === 0 ? Buffer.from(chunk) : Buffer.concat([this.buffered, chunk]);
    const records: string[] = [];
    for (;;) {
      const newline = this.buffered.indexOf(NEWLINE);
      if (newline < 0) {
        if (this.buffered.length > MAX_LENGTH_DIGITS)
          throw new RecordIoError(
            `malformed RecordIO length prefix: ${JSON.stringify(this.buffered.subarray(0, MAX_LENGTH_DIGITS).toString('latin1'))}`,
          );
        break;
      }
      const prefix = this.buffered.subarray(0, newline).toString('latin1');
      if (!/^\d{1,20}$/.test(prefix)) throw new RecordIoError(`malformed RecordIO length prefix: ${JSON.stringify(prefix)}`);
      const length = Number(prefix);
      const end = newline + 1 + length;
      if (this.buffered.length < end) break;
      records.push(this.buffered.subarray(newline + 1, end).toString('utf8'));
      this.buffered = this.buffered.subarray(end);
    }
    return records;
  }

  /** Bytes received that do not yet form a whole record. */
  pending(): number {
    return this.buffered.length;
  }
}

/** Frame one record for a RecordIO stream. */
export function encodeRecord(record: string): Buffer {
  const body = Buffer.from(record, 'utf8');
  return Buffer.concat([Buffer.from(`${body.length}\n`, 'latin1'), body]);
}
