// metav1.Time (RFC 3339, whole seconds, UTC) and metav1.MicroTime (six fractional digits, UTC) as
// the API server reads and writes them (apimachinery pkg/apis/meta/v1/time.go, micro_time.go).
import { fromDate, GO_ZERO_SECONDS, goFormat, goParse, RFC3339, RFC3339_MICRO, type GoTime } from './go-time.js';

export { GoTimeParseError } from './go-time.js';

export const formatTime = (date: Date): string => goFormat(fromDate(date), RFC3339);
export const formatMicroTime = (date: Date): string => goFormat(fromDate(date), RFC3339_MICRO);

export const now = (): string => formatTime(new Date());
export const microNow = (): string => formatMicroTime(new Date());

// MarshalJSON writes the zero Time as null, so a zero value read from a client is stored as absent.
// The check is on what gets stored: a Time keeps whole seconds only (its protobuf form drops the
// nanoseconds), a MicroTime microseconds.
const isZero = (time: GoTime, nanosKept: number): boolean => time.seconds === GO_ZERO_SECONDS && Math.floor(time.nanos / nanosKept) === 0;

/**
 * A client's metav1.Time as the API server stores and returns it: UnmarshalJSON's
 * `time.Parse(time.RFC3339, s)` (which also takes a fraction after the seconds, any number of
 * digits, and refuses ""), then MarshalJSON's `t.UTC().Format(time.RFC3339)`. Undefined for the
 * zero time; throws GoTimeParseError with Go's text.
 */
export function canonicalTime(text: string): string | undefined {
  const time = goParse(RFC3339, text);
  return isZero(time, 1_000_000_000) ? undefined : goFormat(time, RFC3339);
}

/**
 * A client's metav1.MicroTime as stored: `time.Parse(RFC3339Micro, s)`, whose `.000000` takes
 * exactly six digits (".835Z" is refused), then `t.UTC().Format(RFC3339Micro)`.
 */
export function canonicalMicroTime(text: string): string | undefined {
  const time = goParse(RFC3339_MICRO, text);
  return isZero(time, 1000) ? undefined : goFormat(time, RFC3339_MICRO);
}

/**
 * A metav1.Time query parameter (UnmarshalQueryParameter: "" and "null" are the zero time,
 * anything else goes through time.Parse as in canonicalTime).
 */
export function queryTime(text: string): string | undefined {
  if (text === '' || text === 'null') return undefined;
  return canonicalTime(text);
}
