/**
 * JSON read as JSON.parse reads it, plus what Go's decoder sees and JSON.parse loses: every
 * occurrence of a key an object repeats (Go decodes each in turn into the same field, JSON.parse
 * keeps the last), and how a number was written (Go refuses `1e3` or `1.0` for an integer field,
 * which JSON.parse hands over as a plain 1000 or 1). That is kept out of sight on the objects and
 * arrays that need it, so every other reader gets exactly JSON.parse's values.
 */

/** A key of an object as written, in order, with the number's text when JSON.parse's value does not spell it. */
export interface SourceEntry {
  readonly key: string;
  readonly value: unknown;
  readonly literal?: string;
}

const ENTRIES = Symbol('go-json entries');
const LITERALS = Symbol('go-json array number literals');

type Annotated = { [ENTRIES]?: SourceEntry[]; [LITERALS]?: Map<number, string> };

/** An object's keys as written (repeats included), or its own keys when nothing was kept for it. */
export function sourceEntries(object: Record<string, unknown>): readonly SourceEntry[] {
  return (object as Annotated)[ENTRIES] ?? Object.entries(object).map(([key, value]) => ({ key, value }));
}

/** How the number at `index` of an array was written, when JSON.parse's value does not spell it. */
export function arrayLiteral(array: readonly unknown[], index: number): string | undefined {
  return (array as Annotated)[LITERALS]?.get(index);
}

function hide(target: object, key: symbol, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: false });
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const WHITESPACE = /[ \t\n\r]*/y;
// JSON forbids control characters inside a string, so the string patterns name them.
// eslint-disable-next-line no-control-regex
const PLAIN_STRING = /"[^"\\\u0000-\u001f]*"/y;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
// eslint-disable-next-line no-control-regex
const STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;

class Reader {
  position = 0;
  constructor(private readonly text: string) {}

  private fail(): never {
    throw new SyntaxError(`unexpected input at ${this.position}`);
  }

  private skip(): void {
    WHITESPACE.lastIndex = this.position;
    WHITESPACE.test(this.text);
    this.position = WHITESPACE.lastIndex;
  }

  private match(pattern: RegExp): string | undefined {
    pattern.lastIndex = this.position;
    const found = pattern.exec(this.text);
    if (!found) return undefined;
    this.position = pattern.lastIndex;
    return found[0];
  }

  private string(): string {
    const plain = this.match(PLAIN_STRING);
    if (plain !== undefined) return plain.slice(1, -1);
    const escaped = this.match(STRING) ?? this.fail();
    // Go reads a lone surrogate escape as U+FFFD.
    return (JSON.parse(escaped) as string).replace(LONE_SURROGATE, '\ufffd');
  }

  /** A value and, for a number JSON.parse would not spell as written, its text. */
  value(depth: number): { value: unknown; literal?: string } {
    if (depth > 10_000) this.fail();
    this.skip();
    const char = this.text[this.position];
    if (char === '{') return { value: this.object(depth) };
    if (char === '[') return { value: this.array(depth) };
    if (char === '"') return { value: this.string() };
    for (const [word, value] of [
      ['true', true],
      ['false', false],
      ['null', null],
    ] as const) {
      if (this.text.startsWith(word, this.position)) {
        this.position += word.length;
        return { value };
      }
    }
    const text = this.match(NUMBER) ?? this.fail();
    const value = Number(text);
    return String(value) === text ? { value } : { value, literal: text };
  }

  private object(depth: number): Record<string, unknown> {
    this.position++;
    const out: Record<string, unknown> = {};
    const entries: SourceEntry[] = [];
    let annotate = false;
    this.skip();
    if (this.text[this.position] === '}') {
      this.position++;
      return out;
    }
    for (;;) {
      this.skip();
      if (this.text[this.position] !== '"') this.fail();
      const key = this.string();
      this.skip();
      if (this.text[this.position] !== ':') this.fail();
      this.position++;
      const { value, literal } = this.value(depth + 1);
      if (Object.hasOwn(out, key) || literal !== undefined) annotate = true;
      // As JSON.parse: an own property even for `__proto__`.
      Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
      entries.push(literal === undefined ? { key, value } : { key, value, literal });
      this.skip();
      const next = this.text[this.position++];
      if (next === '}') break;
      if (next !== ',') this.fail();
    }
    if (annotate) hide(out, ENTRIES, entries);
    return out;
  }

  private array(depth: number): unknown[] {
    this.position++;
    const out: unknown[] = [];
    let literals: Map<number, string> | undefined;
    this.skip();
    if (this.text[this.position] === ']') {
      this.position++;
      return out;
    }
    for (;;) {
      const { value, literal } = this.value(depth + 1);
      if (literal !== undefined) (literals ??= new Map()).set(out.length, literal);
      out.push(value);
      this.skip();
      const next = this.text[this.position++];
      if (next === ']') break;
      if (next !== ',') this.fail();
    }
    if (literals) hide(out, LITERALS, literals);
    return out;
  }

  end(): void {
    this.skip();
    if (this.position !== this.text.length) this.fail();
  }
}

/**
 * Parses JSON text as JSON.parse does, throwing JSON.parse's own error for text it refuses, and
 * keeps the repeated keys and number spellings Go's decoder would see (sourceEntries, arrayLiteral).
 * Nesting deeper than Go's decoder allows (10,000) is refused.
 */
export function parseGoJson(text: string): unknown {
  const reader = new Reader(text);
  try {
    const { value } = reader.value(0);
    reader.end();
    return value;
  } catch (error) {
    // JSON.parse's words for the mistake; text only this reader refuses is nested too deeply.
    JSON.parse(text);
    throw new SyntaxError('JSON nested deeper than 10000 levels', { cause: error });
  }
}
