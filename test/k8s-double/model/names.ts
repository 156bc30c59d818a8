// apimachinery's name and label checks with their exact messages (util/validation).
import { randomInt } from 'node:crypto';

const DNS1123_LABEL = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN = `${DNS1123_LABEL}(\\.${DNS1123_LABEL})*`;
const DNS1035_LABEL = '[a-z]([-a-z0-9]*[a-z0-9])?';
const QUALIFIED_NAME = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const LABEL_VALUE = `(${QUALIFIED_NAME})?`;

const full = (pattern: string) => new RegExp(`^${pattern}$`);
const maxLen = (n: number) => `must be no more than ${n} characters`;
/** Go's len(): lengths are counted in UTF-8 bytes, so a non-ASCII value is longer than its JS length. */
export const byteLength = (value: string): number => Buffer.byteLength(value, 'utf8');
export function regexError(message: string, pattern: string, ...examples: string[]): string {
  if (examples.length === 0) return `${message} (regex used for validation is '${pattern}')`;
  return `${message} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${pattern}')`;
}

export function isDNS1123Label(value: string): string[] {
  const errors: string[] = [];
  if (byteLength(value) > 63) errors.push(maxLen(63));
  if (!full(DNS1123_LABEL).test(value)) {
    if (full(DNS1123_SUBDOMAIN).test(value)) errors.push('must not contain dots');
    else
      errors.push(
        regexError(
          "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
          DNS1123_LABEL,
          'my-name',
          '123-abc',
        ),
      );
  }
  return errors;
}

export function isDNS1123Subdomain(value: string): string[] {
  const errors: string[] = [];
  if (byteLength(value) > 253) errors.push(maxLen(253));
  if (!full(DNS1123_SUBDOMAIN).test(value)) {
    errors.push(
      regexError(
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
        DNS1123_SUBDOMAIN,
        'example.com',
      ),
    );
  }
  return errors;
}

export function isDNS1035Label(value: string): string[] {
  const errors: string[] = [];
  if (byteLength(value) > 63) errors.push(maxLen(63));
  if (!full(DNS1035_LABEL).test(value)) {
    errors.push(
      regexError(
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
        DNS1035_LABEL,
        'my-name',
        'abc-123',
      ),
    );
  }
  return errors;
}

const QUALIFIED_MESSAGE = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

export function isQualifiedName(value: string): string[] {
  const errors: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) name = parts[0]!;
  else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0) errors.push('prefix part must be non-empty');
    else errors.push(...isDNS1123Subdomain(prefix).map((m) => `prefix part ${m}`));
  } else {
    return [
      `a qualified name ${regexError(QUALIFIED_MESSAGE, QUALIFIED_NAME, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  if (name.length === 0) errors.push('name part must be non-empty');
  else if (byteLength(name) > 63) errors.push(`name part ${maxLen(63)}`);
  if (!full(QUALIFIED_NAME).test(name))
    errors.push(`name part ${regexError(QUALIFIED_MESSAGE, QUALIFIED_NAME, 'MyName', 'my.name', '123-abc')}`);
  return errors;
}

export function isValidLabelValue(value: string): string[] {
  const errors: string[] = [];
  if (byteLength(value) > 63) errors.push(maxLen(63));
  if (!full(LABEL_VALUE).test(value)) {
    errors.push(
      regexError(
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        LABEL_VALUE,
        'MyValue',
        'my_value',
        '12345',
      ),
    );
  }
  return errors;
}

/**
 * IsRelaxedEnvVarName: what a 1.32 API server checks env names with (the
 * RelaxedEnvironmentVariableValidation gate is beta and on): printable ASCII except '='. The older
 * regex (IsEnvVarName) applies only with the gate off.
 */
export function isEnvVarName(value: string): string[] {
  if (value.length === 0) return ['environment variable name must be non-empty'];
  for (const char of value) {
    const code = char.codePointAt(0)!;
    if (code < 0x20 || code > 0x7e || char === '=') {
      return ["a valid environment variable name must consist only of printable ASCII characters other than '='"];
    }
  }
  return [];
}

const CONFIG_KEY = '[-._a-zA-Z0-9]+';
/** IsConfigMapKey (apimachinery pkg/util/validation/validation.go), with its hasChDirPrefix. */
export function isConfigMapKey(value: string): string[] {
  const errors: string[] = [];
  if (byteLength(value) > 253) errors.push(maxLen(253));
  if (!full(CONFIG_KEY).test(value)) {
    errors.push(
      regexError(
        "a valid config key must consist of alphanumeric characters, '-', '_' or '.'",
        CONFIG_KEY,
        'key.name',
        'KEY_NAME',
        'key-name',
      ),
    );
  }
  if (value === '.') errors.push("must not be '.'");
  else if (value === '..') errors.push("must not be '..'");
  else if (value.startsWith('..')) errors.push("must not start with '..'");
  return errors;
}

export function isValidPortName(value: string): string[] {
  const errors: string[] = [];
  if (byteLength(value) > 15) errors.push(maxLen(15));
  if (!/^[-a-z0-9]+$/.test(value)) errors.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (!/[a-z]/.test(value)) errors.push('must contain at least one letter (a-z)');
  if (value.includes('--')) errors.push('must not contain consecutive hyphens');
  if (value.startsWith('-') || value.endsWith('-')) errors.push('must not begin or end with a hyphen');
  return errors;
}

export const isValidPortNumber = (port: number): string[] => (port >= 1 && port <= 65535 ? [] : ['must be between 1 and 65535, inclusive']);

/** A name validator as ValidateObjectMeta takes it; with `prefix` a generateName's trailing dash is allowed. */
export type NameValidator = (name: string, prefix: boolean) => string[];
const maskTrailingDash = (name: string): string => (name.length > 1 && name.endsWith('-') ? `${name.slice(0, -2)}a` : name);
export const nameIsDNSSubdomain: NameValidator = (name, prefix) => isDNS1123Subdomain(prefix ? maskTrailingDash(name) : name);
export const nameIsDNSLabel: NameValidator = (name, prefix) => isDNS1123Label(prefix ? maskTrailingDash(name) : name);
export const nameIsDNS1035Label: NameValidator = (name, prefix) => isDNS1035Label(prefix ? maskTrailingDash(name) : name);

const GENERATED_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
/** names.SimpleNameGenerator: the prefix (cut to 58 characters) and five random characters. */
export function generateName(base: string): string {
  let suffix = '';
  for (let i = 0; i < 5; i++) suffix += GENERATED_ALPHABET[randomInt(GENERATED_ALPHABET.length)];
  return `${base.slice(0, 58)}${suffix}`;
}
