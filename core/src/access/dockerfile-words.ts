import { GO_SPACE } from './dockerfile-lines.js';

/*
 * A word of a Dockerfile expanded as the classic builder expands it (moby/buildkit's shell lexer,
 * `ProcessWord`, with the Dockerfile's escape character): quotes removed, escapes read, `$NAME` and
 * `${NAME}`, `${NAME:-word}`, `${NAME-word}`, `${NAME:+word}`, `${NAME+word}`, `${NAME?msg}`.
 * A variable can be unknown here (set by the base image's ENV, say): the expansion then knows its
 * text only up to there. What the lexer would refuse (an open quote, a bad substitution) is unknown
 * too, rather than read differently.
 */

/** An expansion: its text, or when not `complete`, the text known before the first unknown part. */
export interface Expanded {
  readonly text: string;
  readonly complete: boolean;
}

export const UNKNOWN: Expanded = { text: '', complete: false };

export function known(text: string): Expanded {
  return { text, complete: true };
}

/** A variable's value; undefined when it is not set (it expands to nothing). */
export type Lookup = (name: string) => Expanded | undefined;

class LexError extends Error {}

const SPECIAL = new Set(['@', '*', '#', '?', '-', '$', '!', '0']);
const LETTER = /^\p{L}$/u;
const DIGIT = /^\p{Nd}$/u;

/** Text built as the lexer builds it, which stops growing at the first unknown part. */
class Text {
  text = '';
  complete = true;
  add(part: Expanded | string): void {
    if (!this.complete) return;
    if (typeof part === 'string') this.text += part;
    else {
      this.text += part.text;
      this.complete = part.complete;
    }
  }
  value(): Expanded {
    return { text: this.text, complete: this.complete };
  }
}

class Lexer {
  private pos = 0;
  private readonly chars: string[];

  constructor(
    word: string,
    private readonly how: { readonly escape: string; readonly lookup: Lookup },
  ) {
    this.chars = Array.from(word);
  }

  private peek(): string | undefined {
    return this.chars[this.pos];
  }

  private next(): string | undefined {
    return this.chars[this.pos++];
  }

  /** `processStopOn`: up to `stop` (consumed), or the end when `stop` is undefined. */
  stopOn(stop: string | undefined): Expanded {
    const result = new Text();
    while (this.peek() !== undefined) {
      const ch = this.peek()!;
      if (stop !== undefined && ch === stop) {
        this.next();
        return result.value();
      }
      if (ch === '$') result.add(this.dollar());
      else if (ch === "'") result.add(this.singleQuote());
      else if (ch === '"') result.add(this.doubleQuote());
      else {
        let out = this.next()!;
        if (out === this.how.escape) {
          const escaped = this.next();
          if (escaped === undefined) break;
          out = escaped;
        }
        result.add(out);
      }
    }
    if (stop !== undefined) throw new LexError(`no matching ${stop}`);
    return result.value();
  }

  private singleQuote(): string {
    this.next();
    let text = '';
    for (;;) {
      const ch = this.next();
      if (ch === undefined) throw new LexError('open single quote');
      if (ch === "'") return text;
      text += ch;
    }
  }

  private doubleQuote(): Expanded {
    this.next();
    const result = new Text();
    for (;;) {
      const ch = this.peek();
      if (ch === undefined) throw new LexError('open double quote');
      if (ch === '"') {
        this.next();
        return result.value();
      }
      if (ch === '$') {
        result.add(this.dollar());
        continue;
      }
      let out = this.next()!;
      if (out === this.how.escape) {
        const following = this.peek();
        if (following === undefined) continue;
        if (following === '"' || following === '$' || following === this.how.escape) out = this.next()!;
      }
      result.add(out);
    }
  }

  private name(): string {
    let name = '';
    for (let ch = this.peek(); ch !== undefined; ch = this.peek()) {
      if (name === '' && DIGIT.test(ch)) {
        while (this.peek() !== undefined && DIGIT.test(this.peek()!)) name += this.next()!;
        return name;
      }
      if (name === '' && SPECIAL.has(ch)) return this.next()!;
      if (!LETTER.test(ch) && !DIGIT.test(ch) && ch !== '_') break;
      name += this.next()!;
    }
    return name;
  }

  private dollar(): Expanded {
    this.next();
    if (this.peek() !== '{') {
      const name = this.name();
      return name === '' ? known('$') : (this.how.lookup(name) ?? known(''));
    }
    this.next();
    const first = this.peek();
    if (first === undefined || first === '{' || first === '}' || first === ':') throw new LexError('bad substitution');
    const name = this.name();
    let modifier = this.next();
    let nullIsUnset = false;
    if (modifier === '}') return this.how.lookup(name) ?? known('');
    if (modifier === ':') {
      nullIsUnset = true;
      modifier = this.next();
    }
    if (modifier === '/') {
      if (nullIsUnset) throw new LexError('unsupported modifier');
      if (this.peek() === '/') this.next();
      this.stopOn('/');
      this.stopOn('}');
      // a replacement is not followed here (`${UNSET/*/http:...}` makes a URL of nothing)
      return UNKNOWN;
    }
    if (modifier === undefined || !'+-?#%'.includes(modifier)) throw new LexError('unsupported modifier');
    if (nullIsUnset && (modifier === '#' || modifier === '%')) throw new LexError('unsupported modifier');
    const word = this.stopOn('}');
    const value = this.how.lookup(name);
    if (value !== undefined && !value.complete) return modifier === '?' ? value : UNKNOWN;
    const empty = value === undefined || (nullIsUnset && value.text === '');
    switch (modifier) {
      case '-':
        return empty ? word : value!;
      case '+':
        return empty ? known('') : word;
      case '?':
        if (empty) throw new LexError(`${name} is not set`);
        return value!;
      default:
        // `#` and `%` trim a pattern; what they leave is not followed here
        return value === undefined || value.text === '' ? known('') : UNKNOWN;
    }
  }
}

/** A word as `ProcessWord` expands it. */
export function expandWord(word: string, escape: string, lookup: Lookup): Expanded {
  try {
    return new Lexer(word, { escape, lookup }).stopOn(undefined);
  } catch (error) {
    if (error instanceof LexError) return UNKNOWN;
    throw error;
  }
}

const SPACE = new RegExp(`^[${GO_SPACE}]$`);

/**
 * The parser's `parseWords` (`ENV a=b c="d e"`, `ARG`): words split at unquoted spaces, quotes and
 * escapes kept for the expansion to read.
 */
export function splitWords(rest: string, escape: string): string[] {
  const chars = Array.from(rest);
  const words: string[] = [];
  let phase: 'spaces' | 'word' | 'quote' = 'spaces';
  let quote = '';
  let blankOk = false;
  let word = '';
  for (let pos = 0; pos <= chars.length; pos++) {
    let ch = chars[pos] ?? '';
    if (phase === 'spaces') {
      if (pos === chars.length) break;
      if (SPACE.test(ch)) continue;
      phase = 'word';
    }
    if (pos === chars.length) {
      if (blankOk || word.length > 0) words.push(word);
      break;
    }
    if (phase === 'word') {
      if (SPACE.test(ch)) {
        phase = 'spaces';
        if (blankOk || word.length > 0) words.push(word);
        word = '';
        blankOk = false;
        continue;
      }
      if (ch === "'" || ch === '"') {
        quote = ch;
        blankOk = true;
        phase = 'quote';
      }
      if (ch === escape) {
        if (pos + 1 === chars.length) continue;
        word += ch;
        pos++;
        ch = chars[pos]!;
      }
      word += ch;
      continue;
    }
    if (ch === quote) phase = 'word';
    if (ch === escape && quote !== "'") {
      if (pos + 1 === chars.length) {
        phase = 'word';
        continue;
      }
      pos++;
      word += ch;
      ch = chars[pos]!;
    }
    word += ch;
  }
  return words;
}
