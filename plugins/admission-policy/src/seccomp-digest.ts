import { createHash } from 'node:crypto';

/**
 * JSON without its insignificant whitespace, every other byte kept (Go's `json.Compact`): the
 * docker CLI reads `--security-opt seccomp=profile.json` and sends the file's content compacted
 * so, inline in the option. Strings are copied as they are, escapes included.
 */
export function compactJson(text: string): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (inString) {
      out += char;
      if (char === '\\') out += text[++i] ?? '';
      else if (char === '"') inString = false;
    } else if (char === '"') {
      inString = true;
      out += char;
    } else if (char !== ' ' && char !== '\t' && char !== '\n' && char !== '\r') {
      out += char;
    }
  }
  return out;
}

/** `sha256:<hex>` of a profile as the engine receives it, whatever whitespace the sender left in. */
export function profileDigest(profile: string): string {
  return `sha256:${createHash('sha256').update(compactJson(profile)).digest('hex')}`;
}
