// apimachinery's field.Error: a typed complaint about one field path, rendered exactly as the
// API server renders it ("spec.containers[0].name: Invalid value: \"Web\": a lowercase RFC 1123 ...").

export type FieldErrorType =
  | 'FieldValueNotFound'
  | 'FieldValueRequired'
  | 'FieldValueDuplicate'
  | 'FieldValueInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueForbidden'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'FieldValueTypeInvalid';

export interface FieldError {
  type: FieldErrorType;
  field: string;
  /** Rendered without the field: `Invalid value: "x": detail`. */
  body: string;
}

const TYPE_TEXT: Record<FieldErrorType, string> = {
  FieldValueNotFound: 'Not found',
  FieldValueRequired: 'Required value',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueInvalid: 'Invalid value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueForbidden: 'Forbidden',
  FieldValueTooLong: 'Too long',
  FieldValueTooMany: 'Too many',
  FieldValueTypeInvalid: 'Invalid value',
};

/**
 * A bad value field.Error prints with Go's %#v (a uint64 as 0x0, a []string as []string{"a"}, a
 * struct as its Go literal), given as that text.
 */
export class GoLiteral {
  constructor(readonly text: string) {}
}

/** %#v of a []string. */
export const goStrings = (values: readonly string[]): GoLiteral =>
  new GoLiteral(`[]string{${values.map((v) => JSON.stringify(v)).join(', ')}}`);

/** Go's %v / %q / %#v of a bad value, as field.Error's ErrorBody prints it. */
function showValue(value: unknown): string {
  if (value instanceof GoLiteral) return value.text;
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

function make(type: FieldErrorType, field: string, value: unknown, detail: string, showsValue: boolean): FieldError {
  let body = TYPE_TEXT[type];
  if (showsValue) body += `: ${showValue(value)}`;
  if (detail) body += `: ${detail}`;
  return { type, field, body };
}

export const fieldError = {
  invalid: (field: string, value: unknown, detail: string) => make('FieldValueInvalid', field, value, detail, true),
  required: (field: string, detail = '') => make('FieldValueRequired', field, '', detail, false),
  duplicate: (field: string, value: unknown) => make('FieldValueDuplicate', field, value, '', true),
  notFound: (field: string, value: unknown) => make('FieldValueNotFound', field, value, '', true),
  forbidden: (field: string, detail: string) => make('FieldValueForbidden', field, '', detail, false),
  tooLong: (field: string, max: number) => make('FieldValueTooLong', field, '', `may not be more than ${max} bytes`, false),
  notSupported: (field: string, value: unknown, supported: readonly string[]) =>
    make('FieldValueNotSupported', field, value, `supported values: ${supported.map((s) => JSON.stringify(s)).join(', ')}`, true),
};

export const renderFieldError = (error: FieldError): string => `${error.field}: ${error.body}`;

/** utilerrors.Aggregate: one error as is, several as "[a, b]" with duplicates dropped. */
export function aggregate(messages: readonly string[]): string {
  const unique = [...new Set(messages)];
  return unique.length === 1 ? unique[0]! : `[${unique.join(', ')}]`;
}

/** A field path builder: path('spec').child('containers').index(0).child('name') → spec.containers[0].name */
export class FieldPath {
  constructor(private readonly text: string) {}
  child(name: string): FieldPath {
    return new FieldPath(this.text ? `${this.text}.${name}` : name);
  }
  index(i: number): FieldPath {
    return new FieldPath(`${this.text}[${i}]`);
  }
  key(k: string): FieldPath {
    return new FieldPath(`${this.text}[${k}]`);
  }
  toString(): string {
    return this.text;
  }
}

export const path = (...names: string[]): FieldPath => names.reduce((p, name) => p.child(name), new FieldPath(''));
