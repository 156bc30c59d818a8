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
const QUANTITY = /^([+-]?)([0-9]*)(?:\.([0-9]*))?([a-zA-Z]*|[eE][+-]?[0-9]+)$/;
const NANO = 1_000_000_000n;

export class QuantityError extends Error {}

/** The API server's parse error text. */
export const QUANTITY_FORMAT_ERROR = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

export function parseQuantity(input: string | number): Quantity {
  const text = typeof input === 'number' ? String(input) : input.trim();
  const match = QUANTITY.exec(text);
  if (!match || text === '' || (match[2] === '' && (match[3] ?? '') === '')) throw new QuantityError(QUANTITY_FORMAT_ERROR);
  const [, sign, whole = '', fraction = '', suffix = ''] = match;
  let format: QuantityFormat;
  let numerator = BigInt(whole + fraction || '0');
  let denominator = 10n ** BigInt(fraction.length);
  if (/^[eE]/.test(suffix)) {
    format = 'DecimalExponent';
    const exponent = Number(suffix.slice(1));
    if (exponent >= 0) numerator *= 10n ** BigInt(exponent);
    else denominator *= 10n ** BigInt(-exponent);
  } else if (suffix in BINARY_SUFFIXES) {
    format = 'BinarySI';
    numerator *= 2n ** BigInt(BINARY_SUFFIXES[suffix]!);
  } else if (suffix in DECIMAL_SUFFIXES) {
    format = 'DecimalSI';
    const exponent = DECIMAL_SUFFIXES[suffix]!;
    if (exponent >= 0) numerator *= 10n ** BigInt(exponent);
    else denominator *= 10n ** BigInt(-exponent);
  } else {
    throw new QuantityError("unable to parse quantity's suffix");
  }
  // round up (away from zero) to whole nanos
  const scaled = numerator * NANO;
  let nanos = scaled / denominator;
  if (scaled % denominator !== 0n) nanos += 1n;
  return { nanos: sign === '-' ? -nanos : nanos, format };
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
