import { parseCsv } from './csv.js';

/** One usable line of a token file. */
export interface TokenEntry {
  readonly line: number;
  readonly token: string;
  readonly user: string;
  /** Absent when the column is empty. */
  readonly uid?: string;
  readonly groups: readonly string[];
}

/** A line kube-apiserver reads but warns about; the warning names the line, never the token. */
export interface TokenFileWarning {
  readonly line: number;
  readonly reason: string;
}

export interface TokenFileProblem {
  readonly line: number;
  readonly reason: string;
}

export type TokenFileResult =
  { readonly entries: readonly TokenEntry[]; readonly warnings: readonly TokenFileWarning[] } | { readonly problem: TokenFileProblem };

/**
 * A token file as kube-apiserver's `--token-auth-file` reads it (`tokenfile.NewCSV`): CSV records
 * of at least 3 columns `token,user,uid`, an optional 4th of comma-separated groups (quoted when it
 * holds more than one), further columns ignored; a record with an empty token is skipped with a
 * warning; a token given twice warns and the later record wins. Two differences, both about
 * values kube-apiserver takes but no one can mean: an empty user name is an error here, and empty
 * group names (`""`, `"a,,b"`) are dropped instead of naming a group `""`. Values are not trimmed.
 */
export function parseTokenFile(text: string): TokenFileResult {
  const csv = parseCsv(text);
  if ('error' in csv) return { problem: { line: csv.error.line, reason: `column ${csv.error.column}: ${csv.error.reason}` } };
  const entries = new Map<string, TokenEntry>();
  const warnings: TokenFileWarning[] = [];
  for (const { line, fields } of csv.records) {
    const [token, user, uid, groups] = fields;
    if (token === undefined || user === undefined || uid === undefined) {
      const reason = `must have at least 3 columns (token, user name, user uid), found ${fields.length}`;
      return { problem: { line, reason } };
    }
    if (token === '') {
      warnings.push({ line, reason: 'empty token: the line is ignored' });
      continue;
    }
    if (user === '') return { problem: { line, reason: 'empty user name' } };
    if (entries.has(token)) {
      warnings.push({ line, reason: `duplicate token (first on line ${entries.get(token)!.line}): this later line wins` });
      entries.delete(token);
    }
    const entry: TokenEntry = {
      line,
      token,
      user,
      ...(uid === '' ? {} : { uid }),
      groups: groups === undefined ? [] : groups.split(',').filter((group) => group !== ''),
    };
    entries.set(token, entry);
  }
  return { entries: [...entries.values()], warnings };
}
