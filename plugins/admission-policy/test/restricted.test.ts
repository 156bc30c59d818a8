import { describe, expect, it } from 'vitest';
import { ALICE, RESTRICTED_OK, admit, create, outcome } from './support.js';

/** [what, HostConfig, User, the 403's text or 'allowed'], judged for alice (team-a: restricted). */
type Case = readonly [string, Record<string, unknown>, string | undefined, string];

const forbids = (rest: string) => `admission policy "restricted" forbids ${rest}`;

function cases(title: string, table: readonly Case[]): void {
  describe(title, () => {
    it.each(table)('%s', (_what, host, user, expected) => {
      expect(outcome(admit(ALICE, create(host, user === undefined ? {} : { User: user })))).toBe(expected);
    });
  });
}

cases('a non-root user', [
  ['a UID', RESTRICTED_OK, '1000', 'allowed'],
  ['a UID and a GID (group 0 too, as Kubernetes)', RESTRICTED_OK, '1000:0', 'allowed'],
  ['unset', RESTRICTED_OK, undefined, forbids('User unset: the image may run as root; give a UID (--user 1000)')],
  ['empty', RESTRICTED_OK, '', forbids('User unset: the image may run as root; give a UID (--user 1000)')],
  ['root', RESTRICTED_OK, 'root', forbids('User: root is root')],
  ['0', RESTRICTED_OK, '0', forbids('User: 0 is root')],
  ['0:0', RESTRICTED_OK, '0:0', forbids('User: 0:0 is root')],
  ['root:root', RESTRICTED_OK, 'root:root', forbids('User: root:root is root')],
  ['000', RESTRICTED_OK, '000', forbids('User: 000 is root')],
  ['a user name', RESTRICTED_OK, 'app', forbids('User: app is a name, which may be root in the image; give a UID')],
]);

cases('no-new-privileges', [
  [
    'missing',
    { ...RESTRICTED_OK, SecurityOpt: [] },
    '1000',
    forbids('HostConfig.SecurityOpt without no-new-privileges (--security-opt no-new-privileges)'),
  ],
  ['no-new-privileges:true', { ...RESTRICTED_OK, SecurityOpt: ['no-new-privileges:true'] }, '1000', 'allowed'],
  ['no-new-privileges=true', { ...RESTRICTED_OK, SecurityOpt: ['no-new-privileges=true'] }, '1000', 'allowed'],
  ['no-new-privileges=1', { ...RESTRICTED_OK, SecurityOpt: ['label=level:s0', 'no-new-privileges=1'] }, '1000', 'allowed'],
  [
    'no-new-privileges=false',
    { ...RESTRICTED_OK, SecurityOpt: ['no-new-privileges=false'] },
    '1000',
    forbids('HostConfig.SecurityOpt[0]: no-new-privileges=false'),
  ],
  [
    'turned off again (the last one counts, as in dockerd)',
    { ...RESTRICTED_OK, SecurityOpt: ['no-new-privileges', 'no-new-privileges=false'] },
    '1000',
    forbids('HostConfig.SecurityOpt[1]: no-new-privileges=false'),
  ],
]);

cases('capabilities', [
  ['NET_BIND_SERVICE', { ...RESTRICTED_OK, CapAdd: ['cap_net_bind_service'] }, '1000', 'allowed'],
  [
    "one of Docker's defaults",
    { ...RESTRICTED_OK, CapAdd: ['NET_BIND_SERVICE', 'CHOWN'] },
    '1000',
    forbids('HostConfig.CapAdd[1]: CHOWN is not NET_BIND_SERVICE'),
  ],
  [
    'one beyond the defaults (the baseline rule)',
    { ...RESTRICTED_OK, CapAdd: ['NET_ADMIN'] },
    '1000',
    forbids("HostConfig.CapAdd[0]: NET_ADMIN is not in Docker's default set"),
  ],
]);

cases('resource limits', [
  [
    'no memory limit',
    { ...RESTRICTED_OK, Memory: 0 },
    '1000',
    forbids('HostConfig.Memory unset: restricted needs a memory limit (--memory)'),
  ],
  [
    'a negative memory limit',
    { ...RESTRICTED_OK, Memory: -1 },
    '1000',
    forbids('HostConfig.Memory=-1: restricted needs a memory limit (--memory)'),
  ],
  [
    'no CPU limit',
    { ...RESTRICTED_OK, NanoCpus: undefined },
    '1000',
    forbids('HostConfig.NanoCpus unset: restricted needs a CPU limit (--cpus or --cpu-quota)'),
  ],
  [
    'CPU shares are no limit',
    { ...RESTRICTED_OK, NanoCpus: 0, CpuShares: 512 },
    '1000',
    forbids('HostConfig.NanoCpus unset: restricted needs a CPU limit (--cpus or --cpu-quota)'),
  ],
  ['--cpu-quota', { ...RESTRICTED_OK, NanoCpus: 0, CpuQuota: 50_000, CpuPeriod: 100_000 }, '1000', 'allowed'],
]);

cases('baseline first', [
  ['--privileged', { ...RESTRICTED_OK, Privileged: true }, '1000', forbids('HostConfig.Privileged')],
  ['--net host, before the user', { NetworkMode: 'host' }, undefined, forbids('HostConfig.NetworkMode=host')],
  ['a bind under a prefix', { ...RESTRICTED_OK, Binds: ['/data/team-a:/data:ro'] }, '1000', 'allowed'],
]);

describe('restricted as a whole', () => {
  it('checks the user, then no-new-privileges, then capabilities, then limits', () => {
    expect(admit(ALICE, create({ CapAdd: ['CHOWN'] }))).toMatchObject({ rule: 'run-as-non-root', field: 'User' });
    expect(admit(ALICE, create({ CapAdd: ['CHOWN'] }, { User: '1000' }))).toMatchObject({ rule: 'privilege-escalation' });
    expect(admit(ALICE, create({ CapAdd: ['CHOWN'], SecurityOpt: ['no-new-privileges'] }, { User: '1000' }))).toMatchObject({
      rule: 'capabilities-restricted',
    });
    expect(admit(ALICE, create({ SecurityOpt: ['no-new-privileges'] }, { User: '1000' }))).toMatchObject({ rule: 'resource-limits' });
  });
});
