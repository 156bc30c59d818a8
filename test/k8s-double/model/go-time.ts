// Go's time.Parse and Time.Format (src/time/format.go) for the two layouts the API server reads
// and writes times with: metav1.Time's RFC 3339 and metav1.MicroTime's RFC3339Micro. A port, not
// a regex, so the double accepts exactly what a real server accepts and refuses the rest with the
// same ParseError text (a MicroTime with three fractional digits, a lowercase 't', a month 13...).
// Like Go it works on the value's UTF-8 bytes: positions and quoted excerpts are byte based.

/** time.RFC3339, what metav1.Time parses and formats (apimachinery pkg/apis/meta/v1/time.go). */
export const RFC3339 = '2006-01-02T15:04:05Z07:00';
/** metav1.RFC3339Micro (apimachinery pkg/apis/meta/v1/micro_time.go). */
export const RFC3339_MICRO = '2006-01-02T15:04:05.000000Z07:00';
export type GoLayout = typeof RFC3339 | typeof RFC3339_MICRO;

/** An instant as Go's time.Time holds it: whole seconds since the Unix epoch and nanoseconds. */
export interface GoTime {
  seconds: number;
  nanos: number;
}

/** time.ParseError, rendered as its Error() method does. */
export class GoTimeParseError extends Error {}

// The layout elements these two layouts are made of (nextStdChunk's std values).
type Element =
  | { kind: 'longYear' } // "2006"
  | { kind: 'zeroMonth' } // "01"
  | { kind: 'zeroDay' } // "02"
  | { kind: 'hour' } // "15"
  | { kind: 'zeroMinute' } // "04"
  | { kind: 'zeroSecond' } // "05"
  | { kind: 'fraction0'; digits: number } // ".000000": exactly that many digits
  | { kind: 'colonTZ' } // "Z07:00": Z or ±hh:mm
  | { kind: 'end' };

interface Chunk {
  /** Literal layout text before the element, matched byte for byte. */
  prefix: string;
  element: Element;
  /** The element as written in the layout, for error messages. */
  text: string;
}

const ELEMENTS: Array<[string, Element]> = [
  ['2006', { kind: 'longYear' }],
  ['01', { kind: 'zeroMonth' }],
  ['02', { kind: 'zeroDay' }],
  ['15', { kind: 'hour' }],
  ['04', { kind: 'zeroMinute' }],
  ['05', { kind: 'zeroSecond' }],
  ['Z07:00', { kind: 'colonTZ' }],
];

/** Splits a layout into literal prefixes and elements, as repeated nextStdChunk calls do. */
function chunks(layout: string): Chunk[] {
  const out: Chunk[] = [];
  let rest = layout;
  for (;;) {
    let found: Chunk | undefined;
    for (let i = 0; i < rest.length && !found; i++) {
      const fraction = /^[.,](0+)(?![0-9])/.exec(rest.slice(i));
      if (fraction) {
        found = { prefix: rest.slice(0, i), element: { kind: 'fraction0', digits: fraction[1]!.length }, text: fraction[0] };
        break;
      }
      const named = ELEMENTS.find(([text]) => rest.startsWith(text, i));
      if (named) found = { prefix: rest.slice(0, i), element: named[1], text: named[0] };
    }
    if (!found) {
      out.push({ prefix: rest, element: { kind: 'end' }, text: '' });
      return out;
    }
    out.push(found);
    rest = rest.slice(found.prefix.length + found.text.length);
  }
}

const LAYOUT_CHUNKS: Record<GoLayout, Chunk[]> = { [RFC3339]: chunks(RFC3339), [RFC3339_MICRO]: chunks(RFC3339_MICRO) };

const isDigit = (s: Uint8Array, i: number): boolean => i < s.length && s[i]! >= 0x30 && s[i]! <= 0x39;
const commaOrPeriod = (b: number | undefined): boolean => b === 0x2e || b === 0x2c;

class Bad extends Error {}

/** getnum: one or two digits (exactly two when fixed). */
function getnum(s: Uint8Array, fixed: boolean): [number, Uint8Array] {
  if (!isDigit(s, 0)) throw new Bad();
  if (!isDigit(s, 1)) {
    if (fixed) throw new Bad();
    return [s[0]! - 0x30, s.subarray(1)];
  }
  return [(s[0]! - 0x30) * 10 + (s[1]! - 0x30), s.subarray(2)];
}

/** atoi: an optional sign and digits, nothing else (an empty digit run is 0, as leadingInt has it). */
function atoi(s: Uint8Array): number {
  let negative = false;
  let i = 0;
  if (s.length > 0 && (s[0] === 0x2d || s[0] === 0x2b)) {
    negative = s[0] === 0x2d;
    i = 1;
  }
  let x = 0;
  for (; i < s.length; i++) {
    if (!isDigit(s, i)) throw new Bad();
    x = x * 10 + (s[i]! - 0x30);
  }
  return negative ? -x : x;
}

/** parseNanoseconds: a separator and up to nine significant digits, scaled to nanoseconds. */
function parseNanoseconds(value: Uint8Array, nbytes: number): { nanos: number; range?: string } {
  if (!commaOrPeriod(value[0])) throw new Bad();
  const n = Math.min(nbytes, 10);
  const digits = atoi(value.subarray(1, n));
  if (digits < 0) return { nanos: 0, range: 'fractional second' };
  return { nanos: digits * 10 ** (10 - n) };
}

/**
 * skip: the layout's literal text must come next, byte for byte (runs of spaces match runs). On a
 * mismatch Go reports the value from where matching stopped, hence the partial rest.
 */
function skip(value: Uint8Array, prefix: string): { rest: Uint8Array; ok: boolean } {
  let p = 0;
  let v = value;
  while (p < prefix.length) {
    if (prefix[p] === ' ') {
      if (v.length > 0 && v[0] !== 0x20) return { rest: v, ok: false };
      while (p < prefix.length && prefix[p] === ' ') p++;
      while (v.length > 0 && v[0] === 0x20) v = v.subarray(1);
      continue;
    }
    if (v.length === 0 || v[0] !== prefix.charCodeAt(p)) return { rest: v, ok: false };
    p++;
    v = v.subarray(1);
  }
  return { rest: v, ok: true };
}

/** Go's quote(): printable ASCII as is (with \" and \\), every other byte as \xNN. */
export function goQuote(bytes: Uint8Array): string {
  let out = '"';
  for (const b of bytes) {
    if (b >= 0x80 || b < 0x20) out += `\\x${b.toString(16).padStart(2, '0')}`;
    else if (b === 0x22 || b === 0x5c) out += `\\${String.fromCharCode(b)}`;
    else out += String.fromCharCode(b);
  }
  return `${out}"`;
}

const utf8 = (text: string): Uint8Array => Buffer.from(text, 'utf8');

function parseError(layout: string, value: Uint8Array, layoutElem: string, valueElem: Uint8Array, message: string): GoTimeParseError {
  if (message) return new GoTimeParseError(`parsing time ${goQuote(value)}${message}`);
  return new GoTimeParseError(
    `parsing time ${goQuote(value)} as ${goQuote(utf8(layout))}: cannot parse ${goQuote(valueElem)} as ${goQuote(utf8(layoutElem))}`,
  );
}

const isLeap = (year: number): boolean => year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
const DAYS_IN = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const daysIn = (month: number, year: number): number => (month === 2 && isLeap(year) ? 29 : DAYS_IN[month - 1]!);

/** Days from 1970-01-01 to a proleptic Gregorian date (any year, no Date and its 0-99 quirk). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

function civilFromDays(days: number): { year: number; month: number; day: number } {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return { year: yoe + era * 400 + (month <= 2 ? 1 : 0), month, day };
}

/** time.Parse(layout, value) for RFC3339 and RFC3339Micro; throws GoTimeParseError. */
export function goParse(layout: GoLayout, text: string): GoTime {
  const original = utf8(text);
  let value = original;
  let year = 0;
  let month = -1;
  let day = -1;
  let hour = 0;
  let minute = 0;
  let second = 0;
  let nanos = 0;
  let zoneOffset: number | undefined;
  const all = LAYOUT_CHUNKS[layout];
  for (let c = 0; c < all.length; c++) {
    const { prefix, element, text: elementText } = all[c]!;
    const skipped = skip(value, prefix);
    value = skipped.rest;
    if (!skipped.ok) throw parseError(layout, original, prefix, value, '');
    if (element.kind === 'end') {
      if (value.length !== 0) throw parseError(layout, original, '', value, `: extra text: ${goQuote(value)}`);
      break;
    }
    const hold = value;
    let range: string | undefined;
    try {
      switch (element.kind) {
        case 'longYear':
          if (value.length < 4 || !isDigit(value, 0)) throw new Bad();
          year = atoi(value.subarray(0, 4));
          value = value.subarray(4);
          break;
        case 'zeroMonth':
          [month, value] = getnum(value, true);
          if (month <= 0 || month > 12) range = 'month';
          break;
        case 'zeroDay':
          // any two digits here: the day is checked against the month once everything is read
          [day, value] = getnum(value, true);
          break;
        case 'hour':
          [hour, value] = getnum(value, false);
          if (hour >= 24) range = 'hour';
          break;
        case 'zeroMinute':
          [minute, value] = getnum(value, true);
          if (minute >= 60) range = 'minute';
          break;
        case 'zeroSecond': {
          [second, value] = getnum(value, true);
          if (second >= 60) {
            range = 'second';
            break;
          }
          // a fraction after the seconds is read even when the layout has none (any number of digits)
          if (value.length >= 2 && commaOrPeriod(value[0]) && isDigit(value, 1)) {
            if (all[c + 1]?.element.kind === 'fraction0') break;
            let n = 2;
            while (n < value.length && isDigit(value, n)) n++;
            ({ nanos, range } = parseNanoseconds(value, n));
            value = value.subarray(n);
          }
          break;
        }
        case 'fraction0': {
          // exactly the layout's number of digits
          const width = 1 + element.digits;
          if (value.length < width) throw new Bad();
          ({ nanos, range } = parseNanoseconds(value, width));
          value = value.subarray(width);
          break;
        }
        case 'colonTZ': {
          if (value.length >= 1 && value[0] === 0x5a) {
            value = value.subarray(1);
            zoneOffset = 0;
            break;
          }
          if (value.length < 6 || value[3] !== 0x3a) throw new Bad();
          const sign = value[0];
          const hours = value.subarray(1, 3);
          const minutes = value.subarray(4, 6);
          value = value.subarray(6);
          let failed = false;
          let hh = 0;
          let mm = 0;
          try {
            [hh] = getnum(hours, true);
            [mm] = getnum(minutes, true);
          } catch (error) {
            if (!(error instanceof Bad)) throw error;
            failed = true;
          }
          // > rather than >=: Go lets offsets of 24 hours or 60 minutes through
          if (hh > 24) range = 'time zone offset hour';
          if (mm > 60) range = 'time zone offset minute';
          zoneOffset = (hh * 60 + mm) * 60;
          if (sign === 0x2d) zoneOffset = -zoneOffset;
          else if (sign !== 0x2b) failed = true;
          if (failed && !range) throw new Bad();
          break;
        }
      }
    } catch (error) {
      if (!(error instanceof Bad)) throw error;
      if (!range) throw parseError(layout, original, elementText, hold, '');
    }
    if (range) throw parseError(layout, original, elementText, value, `: ${range} out of range`);
  }
  if (month < 0) month = 1;
  if (day < 0) day = 1;
  if (day < 1 || day > daysIn(month, year)) throw parseError(layout, original, '', value, ': day out of range');
  const local = daysFromCivil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second;
  return { seconds: local - (zoneOffset ?? 0), nanos };
}

const pad = (n: number, width: number): string => String(n).padStart(width, '0');

/** t.UTC().Format(layout): four-digit (or longer, or signed) year, 'Z', fractions truncated. */
export function goFormat(time: GoTime, layout: GoLayout): string {
  const days = Math.floor(time.seconds / 86400);
  const clock = time.seconds - days * 86400;
  const { year, month, day } = civilFromDays(days);
  const yearText = year < 0 ? `-${pad(-year, 4)}` : pad(year, 4);
  const hms = `${pad(Math.floor(clock / 3600), 2)}:${pad(Math.floor(clock / 60) % 60, 2)}:${pad(clock % 60, 2)}`;
  const fraction = layout === RFC3339_MICRO ? `.${pad(Math.floor(time.nanos / 1000), 6)}` : '';
  return `${yearText}-${pad(month, 2)}-${pad(day, 2)}T${hms}${fraction}Z`;
}

/** Seconds from the Unix epoch to Go's zero Time, 0001-01-01T00:00:00Z (what IsZero tests for). */
export const GO_ZERO_SECONDS = daysFromCivil(1, 1, 1) * 86400;

/** The instant of a JS Date (millisecond precision) as a GoTime. */
export function fromDate(date: Date): GoTime {
  const ms = date.getTime();
  const seconds = Math.floor(ms / 1000);
  return { seconds, nanos: (ms - seconds * 1000) * 1_000_000 };
}
