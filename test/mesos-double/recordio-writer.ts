/** Frame one RecordIO record: `<byte length>\n<bytes>` (docs/recordio.md). Kept apart from the driver's codec on purpose. */
export function recordFrame(value: unknown): Buffer {
  const body = Buffer.from(JSON.stringify(value), 'utf8');
  return Buffer.concat([Buffer.from(`${body.length}\n`), body]);
}
