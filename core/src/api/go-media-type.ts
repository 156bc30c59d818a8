/*
 * Go's mime.ParseMediaType, as far as dockerd asks it whether a request is JSON: its AuthZ
 * middleware sends a plugin the body only when the media type parses and is `application/json`,
 * and its JSON routes refuse a body whose type does not (httputils.CheckForJSON). Both go by the
 * whole header: a parameter Go cannot parse (`application/json; charset`) makes the type unknown.
 */

/** Go's isTSpecial: the characters that end a token. */
const TSPECIALS = new Set('()<>@,;:\\"/[]?=');

function isTokenChar(char: string): boolean {
  const code = char.charCodeAt(0);
  return code > 0x20 && code < 0x7f && !TSPECIALS.has(char);
}

/**
 * Go's unicode.IsSpace as it applies to a header's bytes: Node.js reads them as Latin-1, where Go
 * decodes UTF-8, so a lone 0x85 or 0xA0 byte is no space to Go (it is not valid UTF-8).
 */
const trimLeft = (text: string) => text.replace(/^[\t\n\v\f\r ]+/, '');
const trim = (text: string) => trimLeft(text).replace(/[\t\n\v\f\r ]+$/, '');

function consumeToken(text: string): [token: string, rest: string] {
  let end = 0;
  while (end < text.length && isTokenChar(text[end]!)) end++;
  return [text.slice(0, end), text.slice(end)];
}

/** Go's consumeValue: a token, or a quoted string (unterminated, or broken by CR/LF: no value). */
function consumeValue(text: string): [value: string, rest: string] {
  if (!text.startsWith('"')) return consumeToken(text);
  let value = '';
  for (let i = 1; i < text.length; i++) {
    const char = text[i]!;
    if (char === '"') return [value, text.slice(i + 1)];
    if (char === '\\' && i + 1 < text.length && TSPECIALS.has(text[i + 1]!)) {
      value += text[++i];
      continue;
    }
    if (char === '\r' || char === '\n') return ['', text];
    value += char;
  }
  return ['', text];
}

/** Go's consumeMediaParam: `; name=value`, or nothing consumed (`param` empty). */
function consumeParam(text: string): [param: string, value: string, rest: string] {
  let rest = trimLeft(text);
  if (!rest.startsWith(';')) return ['', '', text];
  rest = trimLeft(rest.slice(1));
  const [name, afterName] = consumeToken(rest);
  if (name === '') return ['', '', text];
  rest = trimLeft(afterName);
  if (!rest.startsWith('=')) return ['', '', text];
  rest = trimLeft(rest.slice(1));
  const [value, afterValue] = consumeValue(rest);
  if (value === '' && afterValue === rest) return ['', '', text];
  return [name.toLowerCase(), value, afterValue];
}

/** Go's checkMediaTypeDisposition: `type` or `type/subtype`, tokens only. */
function validType(mediaType: string): boolean {
  const [type, rest] = consumeToken(mediaType);
  if (type === '') return false;
  if (rest === '') return true;
  if (!rest.startsWith('/')) return false;
  const [subtype, tail] = consumeToken(rest.slice(1));
  return subtype !== '' && tail === '';
}

/**
 * The media type Go's mime.ParseMediaType reads from a Content-Type (lower case, without its
 * parameters), or undefined where Go answers an error. Parameters that repeat with another value
 * are an error, as in Go; RFC 2231 continuations are not checked further (dockerd never uses them).
 */
export function goMediaType(contentType: string): string | undefined {
  const semicolon = contentType.indexOf(';');
  const base = semicolon === -1 ? contentType : contentType.slice(0, semicolon);
  const mediaType = trim(base).toLowerCase();
  if (!validType(mediaType)) return undefined;
  const params = new Map<string, string>();
  let rest = contentType.slice(base.length);
  while (rest.length > 0) {
    rest = trimLeft(rest);
    if (rest.length === 0) break;
    const [name, value, after] = consumeParam(rest);
    if (name === '') {
      // a trailing `;` is allowed, anything else unparsed is an error
      if (trim(after) === ';') break;
      return undefined;
    }
    const seen = params.get(name);
    if (seen !== undefined && seen !== value) return undefined;
    params.set(name, value);
    rest = after;
  }
  return mediaType;
}

/** Whether dockerd takes this Content-Type for JSON (moby's `matchesContentType(ct, "application/json")`). */
export function isGoJsonType(contentType: string | undefined): boolean {
  return contentType !== undefined && goMediaType(contentType) === 'application/json';
}
