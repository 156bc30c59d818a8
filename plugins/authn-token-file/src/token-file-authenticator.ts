import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { AccessPluginSettings, AuthenticationRequest, AuthenticationResult, Authenticator } from '@swarm/plugin-sdk/access';
import { bearerToken } from './bearer.js';
import { TokenFileErrors } from './errors.js';
import { parseTokenFile } from './token-file.js';
import { TokenTable } from './token-table.js';

/** kube-apiserver's answer to a bearer token it does not know; the token itself is never said. */
export const INVALID_BEARER_TOKEN = 'invalid bearer token';

const KNOWN_OPTIONS = new Set(['path']);

function tokenFilePath(settings: AccessPluginSettings): string {
  const unknown = Object.keys(settings.options).find((key) => !KNOWN_OPTIONS.has(key));
  if (unknown !== undefined) throw TokenFileErrors.optionUnknown({ key: unknown });
  const path = settings.options['path'];
  if (typeof path !== 'string' || path === '') throw TokenFileErrors.pathMissing();
  return resolve(settings.configDir, path);
}

/** The token file's callers; warnings go to the log with their line, never with a token. */
async function readTokenTable(path: string, settings: AccessPluginSettings): Promise<TokenTable> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw TokenFileErrors.unreadable({ path, reason: (error as Error).message }, { cause: error });
  }
  const parsed = parseTokenFile(text);
  if ('problem' in parsed) throw TokenFileErrors.lineInvalid({ path, ...parsed.problem });
  for (const warning of parsed.warnings) settings.logger.warn({ path, line: warning.line }, `token file: ${warning.reason}`);
  const table = new TokenTable(parsed.entries);
  settings.logger.info({ path, tokens: table.size }, 'token file read');
  return table;
}

/**
 * The `token-file` authenticator's factory (options `{ path }`, relative to the config file's
 * directory). The file is read once, here, as kube-apiserver reads its `--token-auth-file` only at
 * start: a change takes a restart, so a half-written file never locks callers out mid-run.
 */
export async function createTokenFileAuthenticator(settings: AccessPluginSettings): Promise<Authenticator> {
  const table = await readTokenTable(tokenFilePath(settings), settings);
  return {
    authenticate(request: AuthenticationRequest): AuthenticationResult {
      const token = bearerToken(request.headers);
      if (token === undefined) return undefined;
      return table.find(token) ?? { failed: true, reason: INVALID_BEARER_TOKEN };
    },
  };
}
