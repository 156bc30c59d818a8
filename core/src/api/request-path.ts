import { posix } from 'node:path';
import { CoreErrors } from '../errors.js';

/** A request target as dockerd's router (gorilla/mux over Go's net/http) sees it. */
export type RequestTarget =
  /** The path is clean: route `routingPath` (escaped again, `/` kept); `rawQuery` as sent. */
  | { readonly kind: 'route'; readonly routingPath: string; readonly rawQuery: string }
  /** The path held `.`, `..` or `//`: answer 301 to the clean path and do nothing else. */
  | { readonly kind: 'redirect'; readonly location: string };

const BAD_ESCAPE = /%(?![0-9a-fA-F]{2})/;
/** Go's unescaped path characters: a path made only of these decodes and escapes to itself. */
const PLAIN_PATH = /^[A-Za-z0-9\-_.~$&+,/:;=@]*$/;

/** The three characters Go's `url.unescape` names in `invalid URL escape "%zz"`. */
function checkEscapes(text: string): void {
  const bad = BAD_ESCAPE.exec(text);
  if (bad) throw CoreErrors.badUrlEscape({ escape: text.slice(bad.index, bad.index + 3) });
}

/** Percent-decodes without refusing bytes that are not UTF-8 (Go's unescape takes any byte). */
function unescape(text: string): string {
  checkEscapes(text);
  try {
    return decodeURIComponent(text);
  } catch {
    const bytes = text.replace(/%([0-9a-fA-F]{2})/g, (_all, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
    return Buffer.from(bytes, 'latin1').toString('utf8');
  }
}

/**
 * Go's `shouldEscape(c, encodePath)`: letters, digits, `-_.~` and `$&+,/:;=@` stay; the rest
 * (`?`, `%`, `#`, spaces, `!*'()`, non-ASCII bytes) is escaped.
 */
export function escapePath(path: string): string {
  if (PLAIN_PATH.test(path)) return path;
  let out = '';
  for (const byte of Buffer.from(path, 'utf8')) {
    const char = String.fromCharCode(byte);
    if (PLAIN_PATH.test(char)) out += char;
    else out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** mux's `cleanPath`: Go's `path.Clean`, rooted, keeping one trailing slash. */
function cleanPath(path: string): string {
  if (path === '') return '/';
  return posix.normalize(path.startsWith('/') ? path : `/${path}`);
}

/** The path of an origin-form (`/x`) or absolute-form (`http://host/x`) request target. */
function splitTarget(target: string): { rawPath: string; rawQuery: string } {
  const question = target.indexOf('?');
  let rawPath = question === -1 ? target : target.slice(0, question);
  const rawQuery = question === -1 ? '' : target.slice(question + 1);
  if (!rawPath.startsWith('/')) {
    const absolute = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/]*(\/.*)?$/.exec(rawPath);
    if (!absolute) throw CoreErrors.badRequestTarget({ target });
    rawPath = absolute[1] ?? '/';
  }
  return { rawPath, rawQuery };
}

/**
 * Reads a request target the way dockerd does: the path is decoded, then cleaned; a path that
 * cleaning changes (`/a/../b`, `//`, `/./`, also when spelt `..%2F`) is answered with a 301 to the
 * clean path and never routed, so a proxy that allows or denies by path prefix sees the same path
 * that runs. A bad escape in the path is refused with 400.
 */
export function readRequestTarget(target: string): RequestTarget {
  const { rawPath, rawQuery } = splitTarget(target);
  const path = PLAIN_PATH.test(rawPath) ? rawPath : unescape(rawPath);
  const clean = cleanPath(path);
  if (clean !== path) {
    return { kind: 'redirect', location: `${escapePath(clean)}${rawQuery === '' ? '' : `?${rawQuery}`}` };
  }
  return { kind: 'route', routingPath: escapePath(path), rawQuery };
}

/** The query of a routed request: like dockerd's handlers, a bad escape is refused with 400. */
export function parseQuery(rawQuery: string): URLSearchParams {
  checkEscapes(rawQuery);
  return new URLSearchParams(rawQuery);
}
