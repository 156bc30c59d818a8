import { createHash } from 'node:crypto';
import type { Caller } from '@swarm/plugin-sdk/access';
import type { TokenEntry } from './token-file.js';

/** How the callers of a token file are authenticated: dockerd knows only `TLS`; the SDK names this `token`. */
export const TOKEN_METHOD = 'token';

const digest = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('base64');

/**
 * The callers of a token file, found by the SHA-256 of their token. Looking a digest up in a map
 * tells nothing about how much of a valid token a guess shares (a string comparison of the tokens
 * themselves would stop at the first differing character), and the tokens themselves are not kept.
 */
export class TokenTable {
  private readonly callers = new Map<string, Caller>();

  constructor(entries: readonly TokenEntry[]) {
    for (const entry of entries) {
      const caller: Caller = {
        user: entry.user,
        ...(entry.uid === undefined ? {} : { uid: entry.uid }),
        groups: entry.groups,
        method: TOKEN_METHOD,
      };
      // The file is UTF-8 text: its token is these bytes on the wire.
      this.callers.set(digest(Buffer.from(entry.token, 'utf8')), caller);
    }
  }

  get size(): number {
    return this.callers.size;
  }

  /**
   * The caller of a token as a header gives it: Node.js decodes header bytes as latin1, so each
   * character is one byte. A character above U+00FF cannot have come off the wire and would lose
   * bits in that conversion, so it matches nothing.
   */
  find(headerToken: string): Caller | undefined {
    if ([...headerToken].some((character) => character.charCodeAt(0) > 0xff)) return undefined;
    return this.callers.get(digest(Buffer.from(headerToken, 'latin1')));
  }
}
