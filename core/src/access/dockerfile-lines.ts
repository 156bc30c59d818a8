/*
 * A Dockerfile's instructions as dockerd's classic builder reads them (the parser it shares with
 * BuildKit, moby/buildkit frontend/dockerfile/parser): parser directives at the very top (`syntax`,
 * `escape`, `check`; any other comment ends them), a BOM, comments, lines continued with the escape
 * character (not when it is itself escaped), the keyword in any case, builder flags (`--from=x`)
 * before the arguments, and heredoc bodies, which are no instructions. Whitespace is Go's
 * (`unicode.IsSpace`), not JavaScript's: U+0085 is space to Go, U+FEFF is not.
 */

/** Go's `unicode.IsSpace`. */
export const GO_SPACE = '\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const LEADING_SPACE = new RegExp(`^[${GO_SPACE}]+`);
const TRAILING_SPACE = new RegExp(`[${GO_SPACE}]+$`);
/** The parser's `reWhitespace`, which separates a keyword from its arguments and whitespace-split words. */
export const WORD_SPACE = /[\t\v\f\r ]+/;
const DIRECTIVE = /^([a-zA-Z][a-zA-Z0-9]*)[\t\n\f\r ]*=[\t\n\f\r ]*(.+?)[\t\n\f\r ]*$/;
const DIRECTIVES = new Set(['syntax', 'escape', 'check']);
const HEREDOC_KEYWORDS = new Set(['add', 'copy', 'run']);
const HEREDOC = /^(\d*)<<(-?)[\t\n\f\r ]*([^<]*)$/;

export function goTrim(text: string): string {
  return text.replace(LEADING_SPACE, '').replace(TRAILING_SPACE, '');
}

/** One instruction: its keyword in lower case (as Go's `strings.ToLower` sees the ASCII of it), its flags, the rest. */
export interface Instruction {
  readonly keyword: string;
  readonly flags: readonly string[];
  readonly args: string;
}

/** Go's `strings.ToLower` for what a keyword can hold: ASCII, and the two non-ASCII letters it lowers to ASCII. */
function keywordCase(word: string): string {
  return word
    .replace(/[A-Z]/g, (c) => c.toLowerCase())
    .replace(/\u0130/g, 'i')
    .replace(/\u212a/g, 'k');
}

/** Bytes `unicode.IsSpace` takes for space when Go reads a line byte by byte, as `extractBuilderFlags` does. */
function isSpaceByte(byte: number): boolean {
  return (byte >= 0x09 && byte <= 0x0d) || byte === 0x20 || byte === 0x85 || byte === 0xa0;
}

/**
 * The parser's `extractBuilderFlags`: `--name=value` words (quotes and escapes read) before the
 * arguments. Go reads this part byte by byte, so a byte 0x85 or 0xa0 inside a UTF-8 character (`Å`
 * is c3 85) ends a flag there: read the same way, or `--chown=Åhttp://x` hides an argument.
 */
function builderFlags(line: string, escape: string): { flags: string[]; rest: string } {
  const bytes = Buffer.from(line, 'utf8');
  const esc = escape.charCodeAt(0);
  const flags: string[] = [];
  let phase: 'spaces' | 'word' | 'quote' = 'spaces';
  let word = '';
  let quote = 0;
  let blankOk = false;
  for (let pos = 0; pos <= bytes.length; pos++) {
    const ch = bytes[pos] ?? -1;
    if (phase === 'spaces') {
      if (pos === bytes.length) break;
      if (isSpaceByte(ch)) continue;
      if (ch !== 0x2d || bytes[pos + 1] !== 0x2d) return { flags, rest: bytes.subarray(pos).toString('utf8') };
      phase = 'word';
    }
    if (pos === bytes.length) {
      if (word !== '--' && (blankOk || word.length > 0)) flags.push(word);
      break;
    }
    if (phase === 'word') {
      if (isSpaceByte(ch)) {
        phase = 'spaces';
        if (word === '--') return { flags, rest: bytes.subarray(pos).toString('utf8') };
        if (blankOk || word.length > 0) flags.push(word);
        word = '';
        blankOk = false;
        continue;
      }
      if (ch === 0x27 || ch === 0x22) {
        quote = ch;
        blankOk = true;
        phase = 'quote';
        continue;
      }
      if (ch === esc) {
        if (pos + 1 === bytes.length) continue;
        pos++;
      }
      word += String.fromCharCode(bytes[pos]!);
      continue;
    }
    if (ch === quote) {
      phase = 'word';
      continue;
    }
    if (ch === esc) {
      if (pos + 1 === bytes.length) {
        phase = 'word';
        continue;
      }
      pos++;
    }
    word += String.fromCharCode(bytes[pos]!);
  }
  return { flags, rest: '' };
}

/** The parser's `splitCommand`: keyword, flags and the rest of one logical line (also an `ONBUILD`'s instruction). */
export function splitInstruction(line: string, escape: string): Instruction {
  const trimmed = goTrim(line);
  const match = WORD_SPACE.exec(trimmed);
  const keyword = match ? trimmed.slice(0, match.index) : trimmed;
  if (!match) return { keyword: keywordCase(keyword), flags: [], args: '' };
  const { flags, rest } = builderFlags(trimmed.slice(match.index + match[0].length), escape);
  return { keyword: keywordCase(keyword), flags, args: goTrim(rest) };
}

/** Whether the arguments are a JSON array of strings (the exec form), as `parseJSON` takes them. */
export function jsonArguments(args: string): string[] | undefined {
  const rest = args.replace(LEADING_SPACE, '');
  if (!rest.startsWith('[')) return undefined;
  try {
    const parsed: unknown = JSON.parse(rest);
    return Array.isArray(parsed) && parsed.every((item) => typeof item === 'string') ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** The heredocs a line opens (`<<EOF`, `<<-"EOF"`), roughly as `heredocsFromLine` finds them: their names and whether tabs are stripped. */
function heredocsOf(line: string): Array<{ name: string; chomp: boolean }> {
  const words = line.match(/(?:[^\s"'\\]|\\.|"(?:[^"\\]|\\.)*"|'[^']*')+/g) ?? [];
  const docs: Array<{ name: string; chomp: boolean }> = [];
  for (const word of words) {
    const match = HEREDOC.exec(word);
    if (!match || match[3] === '') continue;
    const name = match[3]!.replace(
      /\\(.)|"((?:[^"\\]|\\.)*)"|'([^']*)'/g,
      (_, escaped?: string, double?: string, single?: string) => escaped ?? single ?? (double ?? '').replace(/\\(["$\\])/g, '$1'),
    );
    if (name !== '' && !/\s/.test(name)) docs.push({ name, chomp: match[2] === '-' });
  }
  return docs;
}

function opensHeredoc(instruction: Instruction, escape: string): boolean {
  const inner = instruction.keyword === 'onbuild' ? splitInstruction(instruction.args, escape) : instruction;
  return HEREDOC_KEYWORDS.has(inner.keyword) && jsonArguments(inner.args) === undefined;
}

/** What a Dockerfile holds for a builder: its instructions in order and its escape character. */
export interface DockerfileText {
  readonly escape: string;
  readonly instructions: readonly Instruction[];
}

/**
 * The instructions of a Dockerfile. With `heredocs`, the lines of a heredoc body are skipped as the
 * parser skips them; without, they are read as instructions (a caller that must not miss an
 * instruction reads both ways).
 */
export function dockerfileInstructions(dockerfile: string, options: { readonly heredocs: boolean }): DockerfileText {
  const lines = dockerfile.split('\n');
  if (lines[0] !== undefined) lines[0] = lines[0].replace(/^\uFEFF/, '');
  let escape = '\\';
  let directives = true;
  let continuation = /(?<!\\)\\[ \t]*$/;
  const instructions: Instruction[] = [];
  const directive = (line: string): void => {
    if (!directives) return;
    const match = line.startsWith('#') ? DIRECTIVE.exec(line.slice(1).replace(LEADING_SPACE, '')) : null;
    const key = match?.[1]!.toLowerCase();
    if (!match || !DIRECTIVES.has(key!)) {
      directives = false;
      return;
    }
    if (key === 'escape' && (match[2] === '`' || match[2] === '\\')) {
      escape = match[2];
      const e = escape === '`' ? '`' : '\\\\';
      continuation = new RegExp(`(?<!${e})${e}[ \\t]*$`);
    }
  };
  const isComment = (line: string) => line.replace(LEADING_SPACE, '').startsWith('#');
  const cut = (line: string): { text: string; continued: boolean } =>
    continuation.test(line) ? { text: line.replace(continuation, ''), continued: true } : { text: line, continued: false };
  let index = 0;
  while (index < lines.length) {
    let line = lines[index++]!.replace(/[\r\n]+$/, '').replace(LEADING_SPACE, '');
    directive(line);
    if (isComment(line)) line = '';
    let { text, continued } = cut(line);
    if (!continued && text === '') continue;
    while (continued && index < lines.length) {
      const next = lines[index++]!.replace(/[\r\n]+$/, '');
      directive(next);
      if (isComment(next) || next.replace(LEADING_SPACE, '') === '') continue;
      const part = cut(next);
      text += part.text;
      continued = part.continued;
    }
    const instruction = splitInstruction(text, escape);
    instructions.push(instruction);
    if (options.heredocs && text.includes('<<') && opensHeredoc(instruction, escape)) {
      for (const doc of heredocsOf(text)) {
        while (index < lines.length) {
          const body = lines[index++]!.replace(/[\r\n]+$/, '');
          if ((doc.chomp ? body.replace(/^\t+/, '') : body) === doc.name) break;
        }
      }
    }
  }
  return { escape, instructions };
}
