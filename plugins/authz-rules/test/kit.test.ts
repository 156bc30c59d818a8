import { describe, expect, it } from 'vitest';
import { NO_OPINION, type AccessRequest, type Authorizer } from '@swarm/plugin-sdk/access';
import { authzConformance } from '@swarm/plugin-sdk/testing';

// The kit itself: each broken authorizer below must fail the check that names its fault.
const kit = (authorizer: Authorizer) =>
  authzConformance(() => authorizer, { actions: ['container.list', 'container.inspect', 'container.create'] });
const knownOnly = (request: AccessRequest) => ['container.list', 'container.inspect', 'container.create'].includes(request.action);

describe('the authz conformance kit catches', () => {
  it('an authorizer that throws on an unknown action', async () => {
    await expect(
      kit({
        authorize: (request) => {
          if (!knownOnly(request)) throw new Error('no such action');
          return { allowed: true };
        },
      }),
    ).rejects.toThrow(/authorize threw for system:anonymous "unknown": Error: no such action/);
  });

  it('a denial without a reason', async () => {
    await expect(kit({ authorize: () => ({ allowed: false, reason: ' ' }) })).rejects.toThrow(/a denial carries a reason/);
  });

  it('an authorizer that allows unknown actions to a caller it refuses a known one', async () => {
    await expect(
      kit({ authorize: (request) => (request.action === 'container.create' ? { allowed: false, reason: 'no' } : { allowed: true }) }),
    ).rejects.toThrow(/allowed an unknown action to a caller refused a known one/);
  });

  it('a visibility that shows what inspect refuses', async () => {
    await expect(
      kit({
        authorize: (request) => (request.action === 'container.list' ? { allowed: true } : { allowed: false, reason: 'no' }),
        visibility: () => ({ sees: () => true }),
      }),
    ).rejects.toThrow(/refused, but the object is visible to them/);
  });

  it('a malformed placement', async () => {
    await expect(kit({ authorize: () => ({ allowed: true, placement: [{ expression: 'zone', rule: 'r' }] }) })).rejects.toThrow(
      /is key==value or key!=value/,
    );
  });

  it('an authorizer that changes the request', async () => {
    await expect(
      kit({
        authorize: (request) => {
          (request.caller.groups as string[]).push('admins');
          return { allowed: true };
        },
      }),
    ).rejects.toThrow(/authorize threw for .*: TypeError: .*not extensible \(requests are frozen/);
  });

  it('an authorizer that answers a malformed no-opinion', async () => {
    await expect(kit({ authorize: () => ({ noOpinion: true, reason: 7 }) as never })).rejects.toThrow(/a no-opinion's reason is a string/);
  });

  it('a visibility that hides what inspect allows, among no-opinions', async () => {
    await expect(
      kit({
        authorize: (request) => (request.action === 'container.inspect' ? { allowed: true } : NO_OPINION),
        visibility: () => ({ sees: () => false }),
      }),
    ).rejects.toThrow(/allowed, but the object is hidden from them/);
  });

  it('and passes one that refuses one action and has no opinion on every other, unknown ones included', async () => {
    await expect(
      kit({ authorize: (request) => (request.action === 'container.create' ? { allowed: false, reason: 'no' } : NO_OPINION) }),
    ).resolves.toBeUndefined();
  });

  it('and passes one that allows everything', async () => {
    await expect(kit({ authorize: () => ({ allowed: true }) })).resolves.toBeUndefined();
  });
});
