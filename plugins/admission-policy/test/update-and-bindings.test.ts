import { describe, expect, it } from 'vitest';
import { ALICE, ANONYMOUS, CI, ROOT, admit, caller, create, outcome } from './support.js';

/** What the docker CLI sends for `docker update --cpu-shares 512`: every other resource at 0. */
const CLI_UPDATE = { Memory: 0, MemorySwap: 0, NanoCpus: 0, CpuQuota: 0, CpuPeriod: 0, CpuShares: 512, Devices: null };

/** What the host asks about an update: the container's config with the update merged into its HostConfig. */
const merged = (update: Record<string, unknown>) => ({
  Image: 'busybox',
  User: '1000',
  HostConfig: { Memory: 1 << 28, NanoCpus: 5e8, SecurityOpt: ['no-new-privileges'], ...update },
});

describe('container.update', () => {
  it.each([
    ['a restricted caller, the CLI zeros ("leave as it is")', ALICE, merged(CLI_UPDATE), 'allowed'],
    ['a restricted caller, a new memory limit', ALICE, merged({ ...CLI_UPDATE, Memory: 1 << 29 }), 'allowed'],
    [
      'a restricted caller lifting memory',
      ALICE,
      merged({ ...CLI_UPDATE, Memory: -1 }),
      'admission policy "restricted" forbids HostConfig.Memory: -1 removes the limit restricted needs',
    ],
    [
      'a restricted caller lifting --cpus',
      ALICE,
      merged({ NanoCpus: -1 }),
      'admission policy "restricted" forbids HostConfig.NanoCpus: -1 removes the limit restricted needs',
    ],
    [
      'a restricted caller lifting --cpu-quota',
      ALICE,
      merged({ CpuQuota: -1 }),
      'admission policy "restricted" forbids HostConfig.CpuQuota: -1 removes the limit restricted needs',
    ],
    [
      "Docker's own update body (resources at top level)",
      ALICE,
      { Memory: -1 },
      'admission policy "restricted" forbids Memory: -1 removes the limit restricted needs',
    ],
    ['a baseline caller lifting limits', ANONYMOUS, merged({ Memory: -1, CpuQuota: -1 }), 'allowed'],
    [
      'devices of the container (dockerd does not update devices, so they are not judged again)',
      CI,
      merged({ Devices: [{ PathOnHost: '/dev/mem' }] }),
      'allowed',
    ],
    ['a privileged caller adding a device', ROOT, merged({ Devices: [{ PathOnHost: '/dev/mem' }], Memory: -1 }), 'allowed'],
    [
      "what an update cannot change is not judged again (another caller's privileged container)",
      ALICE,
      { Image: 'busybox', HostConfig: { ...CLI_UPDATE, Privileged: true, NetworkMode: 'host' } },
      'allowed',
    ],
    ['a malformed update', ALICE, merged({ Memory: '1g' }), 'admission policy "restricted" forbids HostConfig.Memory: expected a number'],
  ] as const)('%s', (_what, who, body, expected) => {
    expect(outcome(admit(who, body, 'container.update'))).toBe(expected);
  });
});

describe('privileged', () => {
  it('lets everything through', () => {
    const everything = create({
      Privileged: true,
      NetworkMode: 'host',
      PidMode: 'host',
      Binds: ['/:/host'],
      CapAdd: ['ALL'],
      Devices: [{ PathOnHost: '/dev/sda' }],
      SecurityOpt: ['seccomp=unconfined', 'apparmor=unconfined', 'label=disable'],
      Sysctls: { 'kernel.msgmax': '1' },
      MaskedPaths: [],
    });
    expect(admit(ROOT, everything)).toEqual({ allowed: true });
  });
});

describe('bindings', () => {
  const privileged = create({ Privileged: true });
  const policyOf = (who: ReturnType<typeof caller>, options?: Record<string, unknown>) => {
    const verdict = admit(who, privileged, 'container.create', options as never);
    return verdict.allowed ? 'privileged' : verdict.policy;
  };

  it('takes the level of the first binding that names the caller', () => {
    expect(policyOf(ALICE)).toBe('restricted');
    expect(policyOf(CI)).toBe('baseline');
    expect(policyOf(ROOT)).toBe('privileged');
    // in team-a and admins: team-a comes first
    expect(policyOf(caller('dana', ['admins', 'team-a']))).toBe('restricted');
  });

  it('gives callers no binding names the default, the anonymous one too', () => {
    expect(policyOf(caller('eve', ['team-z']))).toBe('baseline');
    expect(policyOf(ANONYMOUS)).toBe('baseline');
    expect(policyOf(ANONYMOUS, { default: 'restricted' })).toBe('restricted');
    expect(policyOf(ANONYMOUS, { default: 'privileged', bindings: [{ group: 'system:unauthenticated', level: 'baseline' }] })).toBe(
      'baseline',
    );
  });

  it('is baseline without a default', () => {
    expect(policyOf(caller('eve'), {})).toBe('baseline');
  });

  it('matches users and groups exactly', () => {
    expect(policyOf(caller('CI'))).toBe('baseline');
    expect(policyOf(caller('ci2', ['team-a-ops']))).toBe('baseline');
  });

  it('judges the caller, whatever the outcome', () => {
    expect(outcome(admit(caller('frank', ['team-a']), create({ Privileged: true })))).toBe(
      'admission policy "restricted" forbids HostConfig.Privileged',
    );
  });
});
