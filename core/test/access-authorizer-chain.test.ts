import { describe, expect, it } from 'vitest';
import { NO_OPINION, type AdmissionVerdict, type AuthzDecision, type Authorizer } from '@swarm/plugin-sdk/access';
import { authzRequest, testCaller } from '@swarm/plugin-sdk/testing';
import { AccessControl } from '../dist/access/access-control.js';

const bob = testCaller('bob', ['team-b']);
const answering = (decision: AuthzDecision): Authorizer => ({ authorize: () => decision });
const ALLOW: AuthzDecision = { allowed: true };
const DENY: AuthzDecision = { allowed: false, reason: 'bob may not', rule: 'r' };
const chain = (...answers: AuthzDecision[]) =>
  new AccessControl({
    authenticators: [],
    authorizers: answers.map((answer, i) => ({ name: `a${i}`, plugin: answering(answer) })),
    admission: [],
  });
const ask = (control: AccessControl) => control.authorize(authzRequest(bob, 'container.remove'));

describe('the authorizer chain (allow, deny, no opinion)', () => {
  // Every sequence of up to three answers: the chain allows exactly when none denies and one allows.
  const answers = [ALLOW, DENY, NO_OPINION] as const;
  const sequences: AuthzDecision[][] = [[]];
  for (let length = 1; length <= 3; length++)
    for (let n = 0; n < 3 ** length; n++) sequences.push(Array.from({ length }, (_, i) => answers[Math.floor(n / 3 ** i) % 3]!));

  it.each(
    sequences.slice(1).map((sequence) => [sequence.map((d) => (d === ALLOW ? 'allow' : d === DENY ? 'deny' : 'none')).join(','), sequence]),
  )('%s', async (_name, sequence) => {
    const outcome = ask(chain(...(sequence as AuthzDecision[])));
    const denies = (sequence as AuthzDecision[]).includes(DENY);
    const allows = (sequence as AuthzDecision[]).includes(ALLOW);
    if (denies) await expect(outcome).rejects.toThrow('bob may not');
    else if (allows) await expect(outcome).resolves.toMatchObject({ record: { allowed: true } });
    else await expect(outcome).rejects.toThrow(/^no authorizer allows bob to container\.remove \(no opinion from "a0"/);
  });

  it('allows everything with no authorizer configured', async () => {
    await expect(ask(chain())).resolves.toMatchObject({ record: { allowed: true } });
  });

  it('refuses what every authorizer abstains on with a 403, recorded as no-opinion', async () => {
    const refused = await ask(chain(NO_OPINION, NO_OPINION)).catch((error: unknown) => error);
    expect(refused).toMatchObject({
      code: 'SWARM_ERR_PERMISSION_DENIED',
      message: 'no authorizer allows bob to container.remove (no opinion from "a0", "a1")',
      details: { decision: { allowed: false, rule: 'no-opinion' } },
    });
  });

  it('keeps the placement of the authorizers that allowed', async () => {
    const placing: AuthzDecision = { allowed: true, placement: [{ expression: 'zone==a', rule: 'binding b' }] };
    await expect(ask(chain(NO_OPINION, placing))).resolves.toMatchObject({
      placement: [{ expression: 'zone==a', rule: 'binding b' }],
      record: { allowed: true, plugin: 'a1' },
    });
  });

  it('takes a 2.1 answer without allowed for a refusal, not for no opinion', async () => {
    await expect(ask(chain(ALLOW, {} as AuthzDecision))).rejects.toThrow();
  });
});

describe('an admission refusal', () => {
  const refusing = (verdict: AdmissionVerdict) =>
    new AccessControl({ authenticators: [], authorizers: [], admission: [{ name: 'limits', plugin: { admit: () => verdict } }] });
  const admit = (control: AccessControl) =>
    control.admit({ caller: bob, action: 'container.create', config: { Image: 'busybox' } }).catch((error: unknown) => error);

  it('says what is missing when the field is required (plugin API 2.2), in the answer and the audit record alike', async () => {
    const refused = await admit(
      refusing({ allowed: false, policy: 'limits', rule: 'memory', field: 'HostConfig.Memory', missing: true, detail: ': set -m' }),
    );
    const words = 'admission policy "limits" requires HostConfig.Memory, which is missing: set -m';
    expect(refused).toMatchObject({
      code: 'SWARM_ERR_PERMISSION_DENIED',
      message: words,
      details: { decision: { reason: words, rule: 'memory' } },
    });
  });

  it('says what is forbidden otherwise', async () => {
    const refused = await admit(
      refusing({ allowed: false, policy: 'limits', rule: 'memory', field: 'HostConfig.Memory', detail: ': 8 GiB is over 4 GiB' }),
    );
    expect(refused).toMatchObject({ message: 'admission policy "limits" forbids HostConfig.Memory: 8 GiB is over 4 GiB' });
  });
});
