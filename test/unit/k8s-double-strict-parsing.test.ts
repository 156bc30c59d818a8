import { describe, expect, it } from 'vitest';
import { decode, DecodeError } from '../k8s-double/model/decode.js';
import { goParse, RFC3339, RFC3339_MICRO } from '../k8s-double/model/go-time.js';
import { formatQuantity, parseQuantity } from '../k8s-double/model/quantity.js';
// the schemas decode() looks types up in
import '../k8s-double/model/resources.js';
import { canonicalMicroTime, canonicalTime, formatMicroTime, formatTime, queryTime } from '../k8s-double/model/time.js';

// The double's port of Go's time.Parse for metav1.Time and metav1.MicroTime, and the decoding
// around it: what a real API server accepts, what it refuses and with which text. No server.
const LAYOUT = '"2006-01-02T15:04:05Z07:00"';
const MICRO_LAYOUT = '"2006-01-02T15:04:05.000000Z07:00"';

const parseError = (fn: () => unknown): string => {
  try {
    fn();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('no error');
};

describe('metav1.MicroTime (time.Parse with RFC3339Micro)', () => {
  it('takes exactly six fractional digits and keeps them, in UTC', () => {
    expect(canonicalMicroTime('2026-12-05T22:56:58.835123Z')).toBe('2026-12-05T22:56:58.835123Z');
    expect(canonicalMicroTime('2026-12-05T23:56:58.835123+01:00')).toBe('2026-12-05T22:56:58.835123Z');
    expect(canonicalMicroTime('2026-12-05T22:56:58.000001-00:30')).toBe('2026-12-05T23:26:58.000001Z');
    // the layout's '.' also matches a ',' (parseNanoseconds takes either separator)
    expect(canonicalMicroTime('2026-12-05T22:56:58,835123Z')).toBe('2026-12-05T22:56:58.835123Z');
  });

  it('refuses three digits, none, and more than six with Go’s texts', () => {
    expect(parseError(() => canonicalMicroTime('2026-12-05T22:56:58.835Z'))).toBe(
      `parsing time "2026-12-05T22:56:58.835Z" as ${MICRO_LAYOUT}: cannot parse ".835Z" as ".000000"`,
    );
    expect(parseError(() => canonicalMicroTime('2026-12-05T22:56:58Z'))).toBe(
      `parsing time "2026-12-05T22:56:58Z" as ${MICRO_LAYOUT}: cannot parse "Z" as ".000000"`,
    );
    expect(parseError(() => canonicalMicroTime('2026-12-05T22:56:58.123456456Z'))).toBe(
      `parsing time "2026-12-05T22:56:58.123456456Z" as ${MICRO_LAYOUT}: cannot parse "456Z" as "Z07:00"`,
    );
  });

  it('is what the double itself writes (six digits, UTC)', () => {
    expect(formatMicroTime(new Date(Date.UTC(2026, 11, 5, 22, 56, 58, 835)))).toBe('2026-12-05T22:56:58.835000Z');
    expect(() => goParse(RFC3339_MICRO, formatMicroTime(new Date()))).not.toThrow();
  });
});

describe('metav1.Time (time.Parse with RFC3339)', () => {
  it('accepts a fraction the layout lacks and stores whole seconds in UTC', () => {
    expect(canonicalTime('2026-12-05T22:56:58Z')).toBe('2026-12-05T22:56:58Z');
    expect(canonicalTime('2026-12-05T22:56:58.999999999Z')).toBe('2026-12-05T22:56:58Z');
    expect(canonicalTime('2026-12-05T22:56:58,5Z')).toBe('2026-12-05T22:56:58Z');
    expect(canonicalTime('2026-12-05T22:56:58+01:00')).toBe('2026-12-05T21:56:58Z');
    expect(canonicalTime('2026-12-05T22:56:58-05:30')).toBe('2026-12-06T04:26:58Z');
    // "15" reads one or two digits, and offsets may reach 24 hours (Go checks > 24, not >= 24)
    expect(canonicalTime('2026-12-05T2:56:58Z')).toBe('2026-12-05T02:56:58Z');
    expect(canonicalTime('2026-12-05T22:56:58+24:00')).toBe('2026-12-04T22:56:58Z');
    expect(canonicalTime('2024-02-29T00:00:00Z')).toBe('2024-02-29T00:00:00Z');
    expect(formatTime(new Date(Date.UTC(2026, 11, 5, 22, 56, 58, 835)))).toBe('2026-12-05T22:56:58Z');
  });

  it('treats the zero time as null, as MarshalJSON writes it', () => {
    expect(canonicalTime('0001-01-01T00:00:00Z')).toBeUndefined();
    expect(canonicalMicroTime('0001-01-01T00:00:00.000000Z')).toBeUndefined();
  });

  it('refuses "" (cannot parse "" as "2006"), unlike a query parameter', () => {
    expect(parseError(() => canonicalTime(''))).toBe(`parsing time "" as ${LAYOUT}: cannot parse "" as "2006"`);
    expect(queryTime('')).toBeUndefined();
    expect(queryTime('2026-12-05T22:56:58Z')).toBe('2026-12-05T22:56:58Z');
  });

  it('matches literals byte for byte: lowercase t and z, missing colons, wrong separators', () => {
    expect(parseError(() => canonicalTime('2026-12-05t22:56:58Z'))).toBe(
      `parsing time "2026-12-05t22:56:58Z" as ${LAYOUT}: cannot parse "t22:56:58Z" as "T"`,
    );
    expect(parseError(() => canonicalTime('2026-12-05T22:56:58z'))).toBe(
      `parsing time "2026-12-05T22:56:58z" as ${LAYOUT}: cannot parse "z" as "Z07:00"`,
    );
    expect(parseError(() => canonicalTime('2026-12-05T22:56:58+0100'))).toBe(
      `parsing time "2026-12-05T22:56:58+0100" as ${LAYOUT}: cannot parse "+0100" as "Z07:00"`,
    );
    expect(parseError(() => canonicalTime('20261-12-05T22:56:58Z'))).toBe(
      `parsing time "20261-12-05T22:56:58Z" as ${LAYOUT}: cannot parse "1-12-05T22:56:58Z" as "-"`,
    );
    expect(parseError(() => canonicalTime('2026-1-05T22:56:58Z'))).toBe(
      `parsing time "2026-1-05T22:56:58Z" as ${LAYOUT}: cannot parse "1-05T22:56:58Z" as "01"`,
    );
  });

  it('reports values out of range without the layout', () => {
    expect(parseError(() => canonicalTime('2026-13-05T22:56:58Z'))).toBe('parsing time "2026-13-05T22:56:58Z": month out of range');
    expect(parseError(() => canonicalTime('2026-00-05T22:56:58Z'))).toBe('parsing time "2026-00-05T22:56:58Z": month out of range');
    expect(parseError(() => canonicalTime('2026-02-29T22:56:58Z'))).toBe('parsing time "2026-02-29T22:56:58Z": day out of range');
    expect(parseError(() => canonicalTime('2026-04-31T22:56:58Z'))).toBe('parsing time "2026-04-31T22:56:58Z": day out of range');
    expect(parseError(() => canonicalTime('2026-12-05T24:56:58Z'))).toBe('parsing time "2026-12-05T24:56:58Z": hour out of range');
    expect(parseError(() => canonicalTime('2026-12-05T22:60:58Z'))).toBe('parsing time "2026-12-05T22:60:58Z": minute out of range');
    expect(parseError(() => canonicalTime('2026-12-05T22:56:60Z'))).toBe('parsing time "2026-12-05T22:56:60Z": second out of range');
    expect(parseError(() => canonicalTime('2026-12-05T22:56:58+25:00'))).toBe(
      'parsing time "2026-12-05T22:56:58+25:00": time zone offset hour out of range',
    );
  });

  it('refuses extra text, quoting the value as Go does', () => {
    expect(parseError(() => canonicalTime('2026-12-05T22:56:58Zjunk'))).toBe('parsing time "2026-12-05T22:56:58Zjunk": extra text: "junk"');
    expect(parseError(() => goParse(RFC3339, '2026-12-05T22:56:58Z "x"'))).toBe(
      'parsing time "2026-12-05T22:56:58Z \\"x\\"": extra text: " \\"x\\""',
    );
    expect(parseError(() => goParse(RFC3339, '2026-12-05T22:56:58é'))).toBe(
      `parsing time "2026-12-05T22:56:58\\xc3\\xa9" as ${LAYOUT}: cannot parse "\\xc3\\xa9" as "Z07:00"`,
    );
  });
});

describe('decoding times, quantities and wrong JSON types', () => {
  const lease = (spec: Record<string, unknown>) => decode({ metadata: { name: 'l' }, spec } as never, 'io.k8s.api.coordination.v1.Lease');

  it('stores MicroTimes canonically and refuses what time.Parse refuses', () => {
    expect(lease({ renewTime: '2026-12-05T23:56:58.835123+01:00' }).value).toMatchObject({
      spec: { renewTime: '2026-12-05T22:56:58.835123Z' },
    });
    expect(lease({ renewTime: null }).value).toEqual({ metadata: { name: 'l' }, spec: {} });
    expect(() => lease({ renewTime: '2026-12-05T22:56:58.835Z' })).toThrow(DecodeError);
    expect(parseError(() => lease({ renewTime: '' }))).toBe(`parsing time "" as ${MICRO_LAYOUT}: cannot parse "" as "2006"`);
  });

  it("names the inner type Time, MicroTime and IntOrString decode into, and a number's text only for numeric types", () => {
    expect(parseError(() => lease({ renewTime: 5 }))).toBe(
      'json: cannot unmarshal number into Go struct field LeaseSpec.spec.renewTime of type string',
    );
    expect(parseError(() => lease({ holderIdentity: 5 }))).toBe(
      'json: cannot unmarshal number into Go struct field LeaseSpec.spec.holderIdentity of type string',
    );
    expect(parseError(() => lease({ leaseDurationSeconds: 1.5 }))).toBe(
      'json: cannot unmarshal number 1.5 into Go struct field LeaseSpec.spec.leaseDurationSeconds of type int32',
    );
    const service = (targetPort: unknown) =>
      decode({ metadata: { name: 's' }, spec: { ports: [{ port: 80, targetPort }] } } as never, 'io.k8s.api.core.v1.Service');
    expect(parseError(() => service(2 ** 31))).toBe(
      'json: cannot unmarshal number 2147483648 into Go struct field ServicePort.spec.ports.targetPort of type int32',
    );
    expect(parseError(() => service(true))).toBe(
      'json: cannot unmarshal bool into Go struct field ServicePort.spec.ports.targetPort of type int32',
    );
  });

  it('parses quantities as parseQuantityString scans them', () => {
    expect(formatQuantity(parseQuantity('0.5'))).toBe('500m');
    expect(formatQuantity(parseQuantity('1024Mi'))).toBe('1Gi');
    expect(formatQuantity(parseQuantity('2e3'))).toBe('2e3');
    // the scanner reads these as zero and five
    expect(formatQuantity(parseQuantity('-'))).toBe('0');
    expect(formatQuantity(parseQuantity('.'))).toBe('0');
    expect(formatQuantity(parseQuantity('5.'))).toBe('5');
    const format = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
    expect(parseError(() => parseQuantity('1X'))).toBe(format);
    expect(parseError(() => parseQuantity(''))).toBe(format);
    expect(parseError(() => parseQuantity('1.5.5'))).toBe(format);
    expect(parseError(() => parseQuantity('1ki'))).toBe("unable to parse quantity's suffix");
    expect(parseError(() => parseQuantity('1Ki3'))).toBe("unable to parse quantity's suffix");
    expect(parseError(() => parseQuantity('1e'))).toBe("unable to parse quantity's suffix");
    // binary amounts are capped at the largest int64
    expect(formatQuantity(parseQuantity('16Ei'))).toBe('9223372036854775807');
  });
});
