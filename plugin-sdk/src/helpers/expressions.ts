import { SdkErrors, type RaiseOptions } from '../errors.js';

/**
 * Swarm classic's placement expressions (`-e constraint:...`, `-e affinity:...`,
 * `-e whitelist:...`): `key==value` or `key!=value`, where value is a glob (`*`, anchored),
 * a `/regex/` (unanchored, Go syntax with leading `(?i)` style flags) or either of them made
 * soft with a leading `~`.
 */
export type ExpressionOperator = '==' | '!=';

export interface Expression {
  /** The text as written, e.g. `storage==~ssd`. */
  readonly source: string;
  readonly key: string;
  readonly operator: ExpressionOperator;
  /** The value without the soft marker `~`. */
  readonly value: string;
  /** Soft expressions are dropped when no node satisfies them. */
  readonly soft: boolean;
  /**
   * True when any candidate matches the value (for `==`), or when none does (for `!=`).
   * No candidates at all: `==` is false, `!=` is true.
   */
  matches(candidates: Iterable<string>): boolean;
  /** `matches` for a single candidate. */
  matchesOne(candidate: string): boolean;
}

const OPERATORS: readonly ExpressionOperator[] = ['==', '!='];
// Swarm classic's key rule, plus `/` after the first character, so that prefixed labels
// (`kubernetes.io/arch`, `topology.kubernetes.io/zone`) can be matched: every key classic took
// is still taken, and only keys it refused are now accepted.
const VALID_KEY = /^[a-z_][a-z0-9\-_./]+$/i;
const VALID_VALUE = /^[=!/]?(~)?[a-z0-9:\-_\s.*/()?+[\]\\^$|]+$/i;
// Go's leading flag group, e.g. `(?i)` or `(?is)`; JavaScript wants them as RegExp flags.
const GO_FLAG_GROUP = /^\(\?([imsU]+)\)/;
// A glob without these is a plain string: `^value$` matches exactly the value itself.
const REGEX_SYNTAX = /[\\^$.|?*+()[\]{}]/;

/**
 * What `details` of an INVALID_EXPRESSION error holds: the expression as written and how to fix
 * it, so a host can name the expression after Swarm classic's text (which does not).
 */
export interface InvalidExpressionDetails {
  readonly expression: string;
  readonly hint: string;
}

const HINTS = {
  operator: 'write key==value or key!=value (a value starting with ~ is soft)',
  key: 'a key is a letter or _ followed by at least one letter, digit, -, _, . or /',
  value: String.raw`a value is one or more letters, digits, spaces or : - _ . * / ( ) ? + [ ] \ ^ $ |, after an optional ~ (soft)`,
} as const;

const details = (expression: string, hint: string): RaiseOptions => {
  const described: InvalidExpressionDetails = { expression, hint };
  return { details: { ...described } };
};

/** Parse one expression; throws INVALID_EXPRESSION with Swarm classic's texts (and the expression in `details`). */
export function parseExpression(source: string): Expression {
  const operator = OPERATORS.find((candidate) => source.includes(candidate));
  if (operator === undefined) throw SdkErrors.expressionOperatorMissing(undefined, details(source, HINTS.operator));
  const at = source.indexOf(operator);
  const key = source.slice(0, at);
  const rawValue = source.slice(at + operator.length);
  if (!VALID_KEY.test(key)) throw SdkErrors.expressionKeyInvalid({ key }, details(source, HINTS.key));
  if (!VALID_VALUE.test(rawValue)) throw SdkErrors.expressionValueInvalid({ value: rawValue }, details(source, HINTS.value));
  const soft = rawValue.startsWith('~');
  const value = rawValue.replace(/^~+/, '');
  return createExpression(source, key, operator, value, soft);
}

/** Parse a list of expressions (a label's JSON array); the first invalid one throws. */
export function parseExpressions(sources: readonly string[]): Expression[] {
  return sources.map(parseExpression);
}

/** `key==value` (soft marker left out), as Swarm classic prints expressions in its errors. */
export function formatExpression(expression: Expression): string {
  return `${expression.key}${expression.operator}${expression.value}`;
}

function createExpression(source: string, key: string, operator: ExpressionOperator, value: string, soft: boolean): Expression {
  const plain = isPlainValue(value);
  const test = plain ? (candidate: string): boolean => candidate === value : regexTest(value);
  const matchesOne = (candidate: string): boolean => test(candidate) === (operator === '==');
  const matches = (candidates: Iterable<string>): boolean => {
    // A set of candidates answers a plain value with one lookup.
    if (plain && candidates instanceof Set) return candidates.has(value) === (operator === '==');
    // Indexed loop for arrays: this runs per node per decision, and array iterators allocate.
    if (Array.isArray(candidates)) {
      const list: readonly string[] = candidates;
      for (let i = 0; i < list.length; i++) if (test(list[i]!)) return operator === '==';
      return operator === '!=';
    }
    for (const candidate of candidates) {
      if (test(candidate)) return operator === '==';
    }
    return operator === '!=';
  };
  return Object.freeze({ source, key, operator, value, soft, matches, matchesOne });
}

const isRegexValue = (value: string): boolean => value.length >= 2 && value.startsWith('/') && value.endsWith('/');

/** A glob with no regex syntax: `^value$` matches the value itself only, so strings are compared instead (far cheaper per node). */
const isPlainValue = (value: string): boolean => !isRegexValue(value) && !REGEX_SYNTAX.test(value);

function regexTest(value: string): (candidate: string) => boolean {
  const pattern = compileValue(value);
  return pattern === undefined ? () => false : (candidate) => pattern.test(candidate);
}

/**
 * The value as a RegExp: `/.../` is used as is (unanchored), anything else is Swarm's glob,
 * `^` + value with `*` → `.*` + `$` (other regex characters keep their meaning, as in Swarm).
 * An invalid pattern matches nothing (Swarm logs it and finds no match).
 */
function compileValue(value: string): RegExp | undefined {
  const source = isRegexValue(value) ? value.slice(1, -1) : `^${value.replaceAll('*', '.*')}$`;
  return compileGoRegex(source);
}

/** Translate the Go RE2 syntax Swarm users write into a JavaScript RegExp. */
function compileGoRegex(source: string): RegExp | undefined {
  let flags = '';
  let body = source;
  const flagGroup = GO_FLAG_GROUP.exec(body);
  if (flagGroup) {
    // `U` (ungreedy) has no JavaScript equivalent: such a pattern is refused like an invalid one.
    if (flagGroup[1]!.includes('U')) return undefined;
    flags = [...new Set(flagGroup[1]!)].join('');
    body = body.slice(flagGroup[0].length);
  }
  body = body.replaceAll('(?P<', '(?<').replaceAll('\\A', '^').replaceAll('\\z', '$');
  try {
    return new RegExp(body, flags);
  } catch {
    return undefined;
  }
}
