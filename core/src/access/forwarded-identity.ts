import type { Caller } from '@swarm/plugin-sdk/access';

/**
 * The header a replica sets when it forwards a request to the primary: the caller it
 * authenticated, as base64url JSON. The primary believes it only from a caller in the managers
 * group; from anyone else it is dropped unread.
 */
export const FORWARDED_CALLER_HEADER = 'x-swarm-forwarded-caller';

export function encodeForwardedCaller(caller: Caller): string {
  return Buffer.from(JSON.stringify({ user: caller.user, uid: caller.uid, groups: caller.groups, method: caller.method })).toString(
    'base64url',
  );
}

/** The caller a replica vouches for, or undefined when the header is not one. */
export function decodeForwardedCaller(value: string | string[] | undefined): Caller | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) return undefined;
  try {
    const parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as Record<string, unknown>;
    const { user, uid, groups, method } = parsed;
    if (typeof user !== 'string' || user === '' || typeof method !== 'string') return undefined;
    if (!Array.isArray(groups) || !groups.every((group): group is string => typeof group === 'string')) return undefined;
    return { user, ...(typeof uid === 'string' ? { uid } : {}), groups, method };
  } catch {
    return undefined;
  }
}
