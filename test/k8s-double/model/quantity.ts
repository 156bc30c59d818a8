// resource.Quantity as the API server reads and writes it: "500m", "1Gi", "2e3", JSON numbers.
// Values are kept as exact nano-units (BigInt) so arithmetic and canonical forms never round.

export type QuantityFormat = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

export interface Quantity {
  /** value × 10^9, rounded up as the API server rounds sub-nano precision. */
  nanos: bigint;
  format: QuantityFormat;
}

const DECIMAL_SUFFIXES: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY_SUFFIXES: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const NANO = 1_000_000_000n;

export class QuantityError extends Error {}

/** The API server's parse error text. */
export const QUANTITY_FORMAT_ERROR = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
const SUFFIX_ERROR = "unable to parse quantity's suffix";

interface QuantityParts {
  negative: boolean;
  /** Digits before the point, leading zeros stripped ("0" when none). */
  whole: string;
  /** Digits after the point. */
  fraction: string;
  suffix: string;
}

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';

/**
 * parseQuantityString (apimachinery pkg/api/resource/quantity.go), step by step rather than the
 * regex its error names: the regex is looser than the scanner in places ("1X" is a format error,
 * not a suffix one) and stricter in others ("-", "." and "5." are zero, zero and five).
 */
function splitQuantity(text: string): QuantityParts {
  let negative = false;
  let pos = 0;
  const end = text.length;
  if (text[0] === '-' || text[0] === '+') {
    negative = text[0] === '-';
    pos++;
  }
  while (text[pos] === '0') pos++;
  if (pos >= end) return { negative, whole: '0', fraction: '', suffix: '' };
  let i = pos;
  while (isDigit(text[i])) i++;
  const whole = text.slice(pos, i) || '0';
  pos = i;
  if (pos >= end) return { negative, whole, fraction: '', suffix: '' };
  let fraction = '';
  if (text[pos] === '.') {
    i = ++pos;
    while (isDigit(text[i])) i++;
    fraction = text.slice(pos, i);
    pos = i;
    if (pos >= end) return { negative, whole, fraction, suffix: '' };
  }
  const suffixStart = pos;
  while (pos < end && 'eEinumkKMGTP'.includes(text[pos]!)) pos++;
  if (text[pos] === '-' || text[pos] === '+') pos++;
  while (isDigit(text[pos])) pos++;
  if (pos < end) throw new QuantityError(QUANTITY_FORMAT_ERROR);
  return { negative, whole, fraction, suffix: text.slice(suffixStart) };
}

/** quantitySuffixer.interpret: decimal and binary SI suffixes, or e/E and a (signed) integer exponent. */
function interpretSuffix(suffix: string): { format: QuantityFormat; base: 2n | 10n; exponent: number } {
  if (suffix in DECIMAL_SUFFIXES) return { format: 'DecimalSI', base: 10n, exponent: DECIMAL_SUFFIXES[suffix]! };
  if (suffix in BINARY_SUFFIXES) return { format: 'BinarySI', base: 2n, exponent: BINARY_SUFFIXES[suffix]! };
  if (suffix.length > 1 && (suffix[0] === 'e' || suffix[0] === 'E') && /^[+-]?[0-9]+$/.test(suffix.slice(1))) {
    return { format: 'DecimalExponent', base: 10n, exponent: Number(suffix.slice(1)) };
  }
  throw new QuantityError(SUFFIX_ERROR);
}

export function parseQuantity(input: string | number): Quantity {
  // Quantity.UnmarshalJSON trims the text before parsing it
  const text = typeof input === 'number' ? String(input) : input.trim();
  if (text === '') throw new QuantityError(QUANTITY_FORMAT_ERROR);
  const { negative, whole, fraction, suffix } = splitQuantity(text);
  const { format, base, exponent } = interpretSuffix(suffix);
  const nanos = magnitudeInNanos(BigInt(whole + fraction), fraction.length, base, exponent, whole);
  // ParseQuantity caps binary amounts (only those) at the largest int64
  const capped = format === 'BinarySI' && nanos > MAX_BINARY_NANOS ? MAX_BINARY_NANOS : nanos;
  return { nanos: negative ? -capped : capped, format };
}

const MAX_BINARY_NANOS = (2n ** 63n - 1n) * NANO;
/** Beyond this many decimal digits the double gives up on exactness (Go's inf.Dec would not). */
const HUGE_DIGITS = 4000;

/** digits × 10^-fractionDigits × base^exponent in nanos, rounded up as ParseQuantity rounds to Nano scale. */
function magnitudeInNanos(digits: bigint, fractionDigits: number, base: bigint, exponent: number, whole: string): bigint {
  if (digits === 0n) return 0n;
  const decimalExponent = exponent * (base === 10n ? 1 : Math.log10(2));
  // non-zero amounts below a nano round up to one nano; skip computing enormous powers for them
  if ((whole === '0' ? 0 : whole.length) + decimalExponent < -10) return 1n;
  if (decimalExponent - fractionDigits > HUGE_DIGITS) return 10n ** BigInt(HUGE_DIGITS) * NANO;
  let numerator = digits * NANO;
  let denominator = 10n ** BigInt(fractionDigits);
  if (exponent >= 0) numerator *= base ** BigInt(exponent);
  else denominator *= base ** BigInt(-exponent);
  let nanos = numerator / denominator;
  if (numerator % denominator !== 0n) nanos += 1n;
  return nanos;
}

/** The canonical text the API server stores and returns ("0.5" → "500m", "1024Mi" → "1Gi"). */
export function formatQuantity(quantity: Quantity): string {
  const { nanos } = quantity;
  if (nanos === 0n) return '0';
  const negative = nanos < 0n;
  const magnitude = negative ? -nanos : nanos;
  let format = quantity.format;
  if (format === 'BinarySI' && (magnitude < 1024n * NANO || magnitude % NANO !== 0n)) format = 'DecimalSI';
  let text: string;
  if (format === 'BinarySI') {
    let value = magnitude / NANO;
    let power = 0;
    while (power < 6 && value % 1024n === 0n) {
      value /= 1024n;
      power++;
    }
    text = `${value}${['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'][power]}`;
  } else {
    let mantissa = magnitude;
    let exponent = -9;
    while (exponent < 18 && mantissa % 1000n === 0n) {
      mantissa /= 1000n;
      exponent += 3;
    }
    if (format === 'DecimalExponent') text = exponent === 0 ? `${mantissa}` : `${mantissa}e${exponent}`;
    else text = `${mantissa}${Object.keys(DECIMAL_SUFFIXES).find((key) => DECIMAL_SUFFIXES[key] === exponent)}`;
  }
  return negative ? `-${text}` : text;
}

/** Milli-units rounded up, as the scheduler counts CPU (e.g. "1.5" → 1500). */
export function milliValue(input: string | number | undefined): number {
  if (input === undefined) return 0;
  const nanos = parseQuantity(input).nanos;
  const million = 1_000_000n;
  return Number(nanos / million + (nanos % million > 0n ? 1n : 0n));
}

/** Whole units rounded up, as the scheduler counts memory and pods. */
export function intValue(input: string | number | undefined): number {
  if (input === undefined) return 0;
  const nanos = parseQuantity(input).nanos;
  return Number(nanos / NANO + (nanos % NANO > 0n ? 1n : 0n));
}

export function compareQuantities(a: string | number, b: string | number): number {
  const difference = parseQuantity(a).nanos - parseQuantity(b).nanos;
  return difference === 0n ? 0 : difference < 0n ? -1 : 1;
}
