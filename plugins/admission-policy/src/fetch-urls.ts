import { PolicyErrors } from './errors.js';

/**
 * URLs an engine fetches for a caller (a build's `remote`, an import's `fromSrc`) as the
 * `allowedUrls` list compares them: scheme, host (with its port unless it is the scheme's
 * default) and path, WHATWG-normalised (`/a/../b` is `/b`, as git and HTTP servers resolve it).
 *
 * The engine parses URLs with Go's `net/url` and hands git URLs to git, not to a WHATWG parser, so
 * a URL is compared only when the parsers cannot disagree on where it leads: plain ASCII, no
 * userinfo (`https://allowed@evil/`), a host written as WHATWG reads it (no `0x7f.1`, no `%2e`),
 * no encoded separators or dots in the path, no `;` path parameters (`/a/..;/b`), no empty
 * segment (`/a//..` is `/a/` to WHATWG, `/` to a server that merges slashes). Anything else is
 * refused with the reason, whatever the list says.
 */
export interface FetchUrl {
  readonly scheme: string;
  /** Lower case, with a port other than the scheme's default. */
  readonly host: string;
  readonly path: string;
}

export type UrlReading = { readonly url: FetchUrl } | { readonly problem: string };

const SCHEMES = new Set(['http', 'https', 'git', 'ssh']);
const DEFAULT_PORTS: Readonly<Record<string, string>> = { http: '80', https: '443', git: '9418', ssh: '22' };
const PRINTABLE = /^[\x21-\x7e]+$/;
/** git's scp-like form `git@host:path`, the only user moby lets through (its `git@` prefix). */
const SCP_LIKE = /^git@([A-Za-z0-9.-]+):([^#]*)/;
const SCHEME = /^([a-z][a-z0-9+.-]*):\/\/([^/?#]*)/;
/** Encoded `/`, `\`, `.`, `%` and NUL: a server that decodes them may resolve a path the list did not allow. */
const ENCODED_SEPARATOR = /%(2f|5c|2e|25|00)/i;

/**
 * The URL the engine would reach for a value, read as moby does: `git@host:path` is git over
 * ssh, `github.com/...` is `https://github.com/...`.
 */
export function readFetchUrl(raw: string): UrlReading {
  if (!PRINTABLE.test(raw) || raw.includes('\\')) return { problem: 'it holds spaces, control characters, backslashes or non-ASCII text' };
  const scp = SCP_LIKE.exec(raw);
  const text = scp ? `ssh://${scp[1]}/${scp[2]}` : raw.startsWith('github.com/') ? `https://${raw}` : raw;
  const head = SCHEME.exec(text);
  if (!head || !SCHEMES.has(head[1]!)) return { problem: 'it is not an http, https, git or ssh URL' };
  const scheme = head[1]!;
  const authority = head[2]!.toLowerCase();
  if (authority.includes('@')) return { problem: 'it names a user (user@host)' };
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { problem: 'it is not a valid URL' };
  }
  const host = url.host.toLowerCase();
  if (host === '' || (authority !== host && authority !== `${host}:${DEFAULT_PORTS[scheme]}`))
    return { problem: `its host ${JSON.stringify(head[2])} is not written plainly` };
  // as written, before WHATWG resolves `..` (`/a//..` is `/a/` to it, `/` to a server that merges slashes)
  const writtenPath = text.slice(head[0].length).split(/[?#]/)[0]!;
  if (ENCODED_SEPARATOR.test(writtenPath) || /;|\/\//.test(writtenPath))
    return { problem: 'its path holds //, ; or an encoded separator or dot' };
  return { url: { scheme, host, path: url.pathname } };
}

function under(path: string, prefix: string): boolean {
  return prefix.endsWith('/') ? path.startsWith(prefix) : path === prefix || path.startsWith(`${prefix}/`);
}

/** Whether a URL is under one of the entries: the same scheme and host, and the path under the entry's by whole segments. */
export function isAllowedUrl(url: FetchUrl, entries: readonly FetchUrl[]): boolean {
  return entries.some((entry) => entry.scheme === url.scheme && entry.host === url.host && under(url.path, entry.path));
}

/** How a URL is shown in a refusal: as the engine would fetch it. */
export function showUrl(url: FetchUrl): string {
  return `${url.scheme}://${url.host}${url.path}`;
}

/** `allowedUrls`: each entry read as a requested URL is, so that both compare alike; a mistake names the entry. */
export function allowedUrlEntries(value: unknown): readonly FetchUrl[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw PolicyErrors.optionType({ path: 'allowedUrls', expected: 'a list of URLs', got: value });
  return value.map((entry: unknown, i) => {
    const path = `allowedUrls[${i}]`;
    if (typeof entry !== 'string') throw PolicyErrors.optionType({ path, expected: 'a URL (https://git.example.com/team-a/)', got: entry });
    const reading = /[?#]/.test(entry) ? { problem: 'a query or fragment cannot be a prefix' } : readFetchUrl(entry);
    if ('problem' in reading) throw PolicyErrors.allowedUrlInvalid({ path, got: entry, reason: reading.problem });
    return reading.url;
  });
}
