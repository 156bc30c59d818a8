/*
 * A CSV reader that reads what Go's `encoding/csv` reads with kube-apiserver's settings (comma
 * separated, `FieldsPerRecord = -1`, strict quotes, no comments, no trimming), so a token file
 * means here what it means to kube-apiserver:
 *
 * - `\r\n` counts as `\n`; a `\r` before the end of the file is dropped; any other `\r` is data.
 * - empty lines are skipped; a line of spaces is a record of one field.
 * - a field that starts with `"` is quoted: `""` inside it is one `"`, and it may hold commas and
 *   newlines; the closing `"` must be followed by a comma or the end of the line.
 * - a `"` anywhere in an unquoted field is an error, as is a quoted field never closed.
 */

export interface CsvRecord {
  /** The 1-based line the record starts on (a quoted field may carry it over several). */
  readonly line: number;
  readonly fields: readonly string[];
}

export interface CsvSyntaxError {
  readonly line: number;
  /** 1-based, in characters. */
  readonly column: number;
  /** Go's words for it. */
  readonly reason: string;
}

export type CsvResult = { readonly records: readonly CsvRecord[] } | { readonly error: CsvSyntaxError };

const BARE_QUOTE = 'bare " in non-quoted-field';
const QUOTE = 'extraneous or missing " in quoted-field';

/** One physical line without its end: Go's `readLine` after it normalised `\r\n`. */
interface Line {
  readonly text: string;
  readonly number: number;
  /** Whether a `\n` ended it (the last line of a file may have none). */
  readonly ended: boolean;
}

function physicalLines(text: string): Line[] {
  const parts = text.split('\n');
  // A final `\n` ends the last line rather than starting an empty one.
  if (parts[parts.length - 1] === '') parts.pop();
  return parts.map((part, index) => ({
    text: part.endsWith('\r') ? part.slice(0, -1) : part,
    number: index + 1,
    ended: index < parts.length - 1 || text.endsWith('\n'),
  }));
}

class Cursor {
  private index = 0;
  constructor(private readonly lines: readonly Line[]) {}

  /** The next line a record may start on, skipping empty ones. */
  nextRecordLine(): Line | undefined {
    for (;;) {
      const line = this.lines[this.index++];
      if (line === undefined || line.text !== '') return line;
    }
  }

  /** The line after the current one, empty or not: the rest of a quoted field. */
  nextLine(): Line | undefined {
    return this.lines[this.index++];
  }
}

type FieldsOrError = { readonly fields: string[] } | { readonly error: CsvSyntaxError };

function readRecord(first: Line, cursor: Cursor): FieldsOrError {
  const fields: string[] = [];
  let line = first;
  let rest = first.text;
  const at = (reason: string, remaining: number): { error: CsvSyntaxError } => ({
    error: { line: line.number, column: line.text.length - remaining + 1, reason },
  });
  for (;;) {
    if (!rest.startsWith('"')) {
      const comma = rest.indexOf(',');
      const field = comma >= 0 ? rest.slice(0, comma) : rest;
      const quote = field.indexOf('"');
      if (quote >= 0) return at(BARE_QUOTE, rest.length - quote);
      fields.push(field);
      if (comma < 0) return { fields };
      rest = rest.slice(comma + 1);
      continue;
    }
    rest = rest.slice(1);
    let value = '';
    for (;;) {
      const quote = rest.indexOf('"');
      if (quote >= 0) {
        value += rest.slice(0, quote);
        rest = rest.slice(quote + 1);
        if (rest.startsWith('"')) {
          value += '"';
          rest = rest.slice(1);
        } else if (rest.startsWith(',')) {
          fields.push(value);
          rest = rest.slice(1);
          break;
        } else if (rest === '') {
          fields.push(value);
          return { fields };
        } else {
          return at(QUOTE, rest.length + 1);
        }
      } else {
        // The field goes on past the end of this line, newline included.
        value += rest + (line.ended ? '\n' : '');
        const next = line.ended ? cursor.nextLine() : undefined;
        if (next === undefined) return at(QUOTE, 0);
        line = next;
        rest = next.text;
      }
    }
  }
}

/** Every record of `text`, or the first syntax error (as Go stops at it). */
export function parseCsv(text: string): CsvResult {
  const cursor = new Cursor(physicalLines(text));
  const records: CsvRecord[] = [];
  for (let line = cursor.nextRecordLine(); line !== undefined; line = cursor.nextRecordLine()) {
    const read = readRecord(line, cursor);
    if ('error' in read) return read;
    records.push({ line: line.number, fields: read.fields });
  }
  return { records };
}
