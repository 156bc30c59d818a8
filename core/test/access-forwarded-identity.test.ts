import { describe, expect, it } from 'vitest';
import { decodeForwardedCaller, encodeForwardedCaller } from '../dist/access/forwarded-identity.js';

describe('the caller a replica vouches for', () => {
  it('round-trips', () => {
    const caller = { user: 'alice', uid: '7', groups: ['team-a'], method: 'TLS' };
    expect(decodeForwardedCaller(encodeForwardedCaller(caller))).toEqual(caller);
  });

  it.each([
    ['not base64 JSON', '%%%'],
    ['no user', Buffer.from(JSON.stringify({ groups: [], method: 'TLS' })).toString('base64url')],
    ['groups not strings', Buffer.from(JSON.stringify({ user: 'x', groups: [1], method: 'TLS' })).toString('base64url')],
    ['an empty user', Buffer.from(JSON.stringify({ user: '', groups: [], method: 'TLS' })).toString('base64url')],
  ])('is nobody when the header is %s', (_what, value) => {
    expect(decodeForwardedCaller(value)).toBeUndefined();
  });
});
