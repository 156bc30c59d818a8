import { posix } from 'node:path';
import { parse as legacyParse } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ErrorCodes, isSwarmError } from '@swarm/plugin-sdk';
import type { AdmissionRequest, Caller } from '@swarm/plugin-sdk/access';
import { ALICE, CI, ROOT, controller, outcome } from './support.js';

/*
 * Builds and imports (issue 42, holes 4 and 5): a build's RUN steps run in a container made of its
 * query parameters, judged as the same fields of a container; the URL a build's `remote` or an
 * import's `fromSrc` makes the engine fetch is refused unless under `allowedUrls`. CI is baseline,
 * ALICE restricted, ROOT privileged (support.ts).
 */

const OPTIONS = {
  default: 'baseline',
  bindings: [
    { group: 'team-a', level: 'restricted' },
    { group: 'admins', level: 'privileged' },
  ],
  allowedCgroupParents: ['/tenants'],
  allowedUrls: ['https://git.example.com/team-a/', 'git@github.com:org/', 'http://10.0.0.5:8080/ctx'],
};

const policy = controller(OPTIONS);

function build(who: Caller, host: Record<string, unknown>, remote?: string): string {
  const request: AdmissionRequest = {
    caller: who,
    action: 'image.build',
    config: { Image: '', HostConfig: host },
    ...(remote === undefined ? {} : { source: { parameter: 'remote', url: remote } }),
  };
  return outcome(policy.admit(request) as ReturnType<typeof policy.admit>);
}

function importFrom(who: Caller, url: string | undefined): string {
  const request: AdmissionRequest = {
    caller: who,
    action: 'image.import',
    config: { Image: '' },
    ...(url === undefined ? {} : { source: { parameter: 'fromSrc', url } }),
  };
  return outcome(policy.admit(request));
}

describe('a build at baseline and restricted', () => {
  // [what, HostConfig of the steps' container, the refusal's field and detail]
  const REFUSED: ReadonlyArray<readonly [string, Record<string, unknown>, string]> = [
    ['--network host', { NetworkMode: 'host' }, 'networkmode=host'],
    ['--cgroup-parent outside the allowed ones', { CgroupParent: '/docker/0123abcd' }, 'cgroupparent: /docker/0123abcd'],
    ['--cgroup-parent climbing out', { CgroupParent: '/tenants/../docker/x' }, 'cgroupparent: /tenants/../docker/x'],
    ['--isolation process', { Isolation: 'process' }, "isolation=process: only the engine's default isolation is allowed"],
    ['--isolation hyperv', { Isolation: 'hyperv' }, 'isolation=hyperv'],
    ['--security-opt seccomp=unconfined', { SecurityOpt: ['seccomp=unconfined'] }, 'securityopt[0]: seccomp=unconfined'],
    ['a network mode that is not a string', { NetworkMode: 7 }, 'networkmode: expected a string'],
    ['an isolation that is not a string', { Isolation: ['process'] }, 'isolation: expected a string'],
  ];
  for (const [what, host, refusal] of REFUSED) {
    it(`refuses ${what}, naming the query parameter`, () => {
      expect(build(CI, host)).toContain(`admission policy "baseline" forbids ${refusal}`);
      expect(build(ALICE, host)).toContain(`admission policy "restricted" forbids ${refusal}`);
      expect(build(ROOT, host)).toBe('allowed');
    });
  }

  const ALLOWED: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
    ['nothing special', {}],
    ['--network default, bridge, none', { NetworkMode: 'bridge' }],
    ['--network none', { NetworkMode: 'none' }],
    // whose container or network it is, the manager checks before admission (another team's is a 404)
    ['--network container:<one the caller may see>', { NetworkMode: 'container:web' }],
    ['--network <a network the caller may see>', { NetworkMode: 'team-a-net' }],
    ['--cgroup-parent under an allowed one', { CgroupParent: '/tenants/a' }],
    ['--isolation default, in any case', { Isolation: 'DEFAULT' }],
    [
      'limits, ulimits, --add-host, --shm-size',
      {
        Memory: 1 << 26,
        MemorySwap: -1,
        CpuShares: 2,
        CpuPeriod: 100000,
        CpuQuota: 50000,
        CpusetCpus: '0',
        ShmSize: 1 << 20,
        Ulimits: [{ Name: 'nofile', Soft: 1024, Hard: 2048 }],
        ExtraHosts: ['db:10.0.0.7'],
      },
    ],
  ];
  for (const [what, host] of ALLOWED) {
    it(`allows ${what}`, () => {
      expect(build(CI, host)).toBe('allowed');
      // restricted's user and limit rules are a container's: a step's user is the Dockerfile's
      expect(build(ALICE, host)).toBe('allowed');
    });
  }

  it('allows the body as the context and BuildKit sessions, where the engine fetches nothing', () => {
    expect(build(CI, {})).toBe('allowed');
    expect(build(ALICE, {})).toBe('allowed');
  });
});

describe('URLs the engine would fetch', () => {
  const REFUSED: ReadonlyArray<readonly [string, string]> = [
    ['http://127.0.0.1:2375/containers/json', 'the engine would fetch http://127.0.0.1:2375/containers/json: it is outside'],
    ['http://169.254.169.254/latest/meta-data/', 'the engine would fetch http://169.254.169.254/latest/meta-data/'],
    ['https://git.example.com/team-b/repo.git', 'the engine would fetch https://git.example.com/team-b/repo.git'],
    ['https://git.example.com/team-a/../team-b/repo.git', 'the engine would fetch https://git.example.com/team-b/repo.git'],
    ['https://git.example.com/team-a/%2e%2e/team-b/x', 'its path holds //, ; or an encoded separator or dot'],
    ['https://git.example.com/team-a/..%2fteam-b/x', 'its path holds //, ; or an encoded separator or dot'],
    ['https://git.example.com/team-a/%252e%252e/x', 'its path holds //, ; or an encoded separator or dot'],
    ['https://git.example.com/team-a/..;/team-b/x', 'its path holds //, ; or an encoded separator or dot'],
    ['https://git.example.com/team-abc/x', 'the engine would fetch https://git.example.com/team-abc/x'],
    ['https://git.example.com@evil.example/team-a/x', 'it names a user (user@host)'],
    ['https://x:y@git.example.com/team-a/x', 'it names a user (user@host)'],
    ['https://evil.example#@git.example.com/team-a/x', 'the engine would fetch https://evil.example/'],
    ['https://evil.example?@git.example.com/team-a/x', 'the engine would fetch https://evil.example/'],
    ['https://git.example.com.evil.example/team-a/x', 'the engine would fetch https://git.example.com.evil.example/team-a/x'],
    ['https://git.example.com./team-a/x', 'the engine would fetch https://git.example.com./team-a/x'],
    ['https://git.example.com:444/team-a/x', 'the engine would fetch https://git.example.com:444/team-a/x'],
    ['http://git.example.com/team-a/x', 'the engine would fetch http://git.example.com/team-a/x'],
    ['HTTPS://git.example.com/team-a/x', 'it is not an http, https, git or ssh URL'],
    ['ftp://git.example.com/team-a/x', 'it is not an http, https, git or ssh URL'],
    ['https://git.example.com\\@evil.example/team-a/', 'backslashes'],
    ['https://git.example.com/team-a/x y', 'spaces'],
    ['https://git.example.com/team-a/\tx', 'control characters'],
    ['https://git.ex\u0430mple.com/team-a/x', 'non-ASCII'],
    ['https://%67it.example.com/team-a/x', 'is not written plainly'],
    ['http://0x7f.1:2375/', 'is not written plainly'],
    ['http://2130706433:2375/', 'is not written plainly'],
    ['http:///127.0.0.1:2375/x', 'is not written plainly'],
    ['http://[::1]:2375/version', 'the engine would fetch http://[::1]:2375/version'],
    ['git@github.com:other/repo.git', 'the engine would fetch ssh://github.com/other/repo.git'],
    ['git@github.com:/org/repo.git', 'its path holds //'],
    ['https://git.example.com/team-a//../team-b/x', 'its path holds //'],
    ['git@evil.example:org/repo.git', 'the engine would fetch ssh://evil.example/org/repo.git'],
    ['git@github.com/x:org/repo', 'it is not an http, https, git or ssh URL'],
    ['github.com/org/repo', 'the engine would fetch https://github.com/org/repo'],
    ['git://github.com/org/repo', 'the engine would fetch git://github.com/org/repo'],
    ['http://10.0.0.5:8080/ctx.tar', 'the engine would fetch http://10.0.0.5:8080/ctx.tar'],
    ['not a url', 'spaces'],
    ['/etc/shadow', 'it is not an http, https, git or ssh URL'],
  ];
  for (const [url, detail] of REFUSED) {
    it(`refuses ${JSON.stringify(url)} as a build's remote and an import's fromSrc, at baseline and restricted`, () => {
      expect(build(CI, {}, url)).toContain(`admission policy "baseline" forbids remote: `);
      expect(build(CI, {}, url)).toContain(detail);
      expect(build(ALICE, {}, url)).toContain(`admission policy "restricted" forbids remote: `);
      expect(importFrom(CI, url)).toContain(`admission policy "baseline" forbids fromSrc: `);
      expect(importFrom(CI, url)).toContain(detail);
      expect(importFrom(ROOT, url)).toBe('allowed');
    });
  }

  const ALLOWED = [
    'https://git.example.com/team-a/repo.git',
    'https://git.example.com/team-a/repo.git#main:docker',
    'https://GIT.example.com/team-a/ctx.tar?token=1',
    'https://git.example.com:443/team-a/x',
    'https://git.example.com/team-a/sub/../repo.git',
    'git@github.com:org/repo.git',
    'git@github.com:org/repo.git#v1',
    'http://10.0.0.5:8080/ctx',
    'http://10.0.0.5:8080/ctx/Dockerfile',
  ];
  for (const url of ALLOWED) {
    it(`allows ${url}, under an allowedUrls entry`, () => {
      expect(build(CI, {}, url)).toBe('allowed');
      expect(build(ALICE, {}, url)).toBe('allowed');
      expect(importFrom(CI, url)).toBe('allowed');
    });
  }

  it('says so when no URL is allowed at all', () => {
    const none = controller({ default: 'baseline' });
    const verdict = none.admit({
      caller: CI,
      action: 'image.import',
      config: { Image: '' },
      source: { parameter: 'fromSrc', url: 'https://git.example.com/team-a/x.tar' },
    });
    expect(outcome(verdict)).toBe(
      'admission policy "baseline" forbids fromSrc: the engine would fetch https://git.example.com/team-a/x.tar: no URL is allowed (allowedUrls)',
    );
  });

  it('allows an import of an uploaded archive (fromSrc=-: no URL)', () => {
    expect(importFrom(CI, undefined)).toBe('allowed');
    expect(importFrom(ALICE, undefined)).toBe('allowed');
  });

  /*
   * Generated attacks: URLs put together from the pieces parsers disagree on. Whatever the policy
   * allows must lead under an allowed entry as a second, older parser (Node's legacy url.parse,
   * which follows neither WHATWG nor Go) reads it too: the same host, no user, and a path under the
   * entry once decoded and resolved.
   */
  it('allows no generated URL that another parser reads as leading elsewhere', () => {
    const hostPieces = ['git.example.com', 'GIT.EXAMPLE.COM', 'evil.example', '@', ':', '443', '%40', '%67', '.', '\\', '#', '?', 'x'];
    const pathPieces = [
      'team-a',
      'team-b',
      '/',
      '//',
      '..',
      '.',
      '%2e',
      '%2E%2e',
      '%2f',
      '%252f',
      ';',
      '#',
      '?',
      '@',
      '\\',
      '\t',
      ' ',
      'x',
      '.git',
      'evil.example',
    ];
    const host = fc.oneof(
      { weight: 3, arbitrary: fc.constant('git.example.com') },
      { weight: 2, arbitrary: fc.array(fc.constantFrom(...hostPieces), { minLength: 1, maxLength: 4 }).map((parts) => parts.join('')) },
    );
    const path = fc
      .tuple(fc.constantFrom('/team-a/', '/', '/team-a', ''), fc.array(fc.constantFrom(...pathPieces), { maxLength: 7 }))
      .map(([start, parts]) => `${start}${parts.join('')}`);
    const urls = fc
      .tuple(fc.constantFrom('https://', 'https://', 'https:', 'https:///', 'http://', 'HTTPS://', ''), host, path)
      .map(([scheme, authority, rest]) => `${scheme}${authority}${rest}`);
    let allowed = 0;
    fc.assert(
      fc.property(urls, (url) => {
        if (build(CI, {}, url) !== 'allowed') return true;
        allowed++;
        const legacy = legacyParse(url);
        const path = posix.normalize(decodeURIComponent(legacy.pathname ?? ''));
        return (
          legacy.protocol === 'https:' &&
          legacy.auth === null &&
          legacy.hostname === 'git.example.com' &&
          (legacy.port === null || legacy.port === '443') &&
          (path === '/team-a' || path.startsWith('/team-a/'))
        );
      }),
      { seed: 42, numRuns: 20_000 },
    );
    // the generator reaches allowed URLs at all, so the property is tested, not vacuous
    expect(allowed).toBeGreaterThan(100);
  });
});

describe("the URLs of a build's Dockerfile (fetches, plugin API 2.3)", () => {
  function buildFetching(who: Caller, fetches: AdmissionRequest['fetches'], remote?: string): string {
    const request: AdmissionRequest = {
      caller: who,
      action: 'image.build',
      config: { Image: '', HostConfig: {} },
      ...(remote === undefined ? {} : { source: { parameter: 'remote', url: remote } }),
      ...(fetches === undefined ? {} : { fetches }),
    };
    return outcome(policy.admit(request) as ReturnType<typeof policy.admit>);
  }

  it('judges an ADD URL as remote is judged, naming ADD, at baseline and restricted', () => {
    const fetches = [{ from: 'ADD' as const, url: 'http://127.0.0.1:2375/containers/theirs/json' }];
    const refusal = 'forbids ADD: the engine would fetch http://127.0.0.1:2375/containers/theirs/json: it is outside';
    expect(buildFetching(CI, fetches)).toContain(`admission policy "baseline" ${refusal}`);
    expect(buildFetching(ALICE, fetches)).toContain(`admission policy "restricted" ${refusal}`);
    expect(buildFetching(ROOT, fetches)).toBe('allowed');
  });

  it('normalises as for remote, and refuses what the parsers could read apart', () => {
    expect(buildFetching(CI, [{ from: 'ADD', url: 'https://git.example.com/team-a/../team-b/x' }])).toContain(
      'forbids ADD: the engine would fetch https://git.example.com/team-b/x: it is outside',
    );
    expect(buildFetching(CI, [{ from: 'ADD', url: 'https://git.example.com@evil.example/team-a/x' }])).toContain(
      'forbids ADD: https://git.example.com@evil.example/team-a/x is refused: it names a user (user@host)',
    );
    expect(buildFetching(CI, [{ from: 'ADD', url: 'https://git.example.com/team-a/x.tgz' }])).toBe('allowed');
  });

  it('judges every fetch: the first refused one is named, remote or ADD', () => {
    const allowed = { from: 'ADD' as const, url: 'https://git.example.com/team-a/ok' };
    const denied = { from: 'ADD' as const, url: 'http://169.254.169.254/latest/meta-data/' };
    expect(buildFetching(CI, [allowed, denied])).toContain('forbids ADD: the engine would fetch http://169.254.169.254/latest/meta-data/');
    const remote = 'https://git.example.com/team-b/ctx.tar';
    expect(buildFetching(CI, [{ from: 'remote', url: remote }, allowed], remote)).toContain(
      `forbids remote: the engine would fetch ${remote}`,
    );
    expect(buildFetching(CI, [allowed, allowed])).toBe('allowed');
    expect(buildFetching(CI, [])).toBe('allowed');
  });

  it('refuses a source the host could not resolve, with its reason, whatever the list says', () => {
    const fetches = [{ from: 'ADD' as const, url: '$URL', unresolved: "$URL holds a variable the base image's ENV may set" }];
    expect(buildFetching(CI, fetches)).toBe(
      'admission policy "baseline" forbids ADD: the engine may fetch a URL that cannot be known here: $URL holds a variable the base image\'s ENV may set',
    );
    expect(buildFetching(ALICE, fetches)).toContain(
      'admission policy "restricted" forbids ADD: the engine may fetch a URL that cannot be known here',
    );
    expect(buildFetching(ROOT, fetches)).toBe('allowed');
  });

  it('reads source when the host gives no fetches (a host before 2.3), and fetches when it does', () => {
    expect(buildFetching(CI, undefined, 'http://127.0.0.1:2375/version')).toContain('forbids remote: the engine would fetch');
    // a 2.3 host lists remote in fetches: fetches is what is judged
    expect(buildFetching(CI, [], 'http://127.0.0.1:2375/version')).toBe('allowed');
  });
});

describe('the allowedUrls option', () => {
  const BAD: ReadonlyArray<readonly [unknown, string]> = [
    ['https://git.example.com/', 'option allowedUrls must be a list of URLs'],
    [[42], 'option allowedUrls[0] must be a URL'],
    [['git.example.com/team-a'], 'option allowedUrls[0] must be an http, https, git or ssh URL prefix'],
    [['https://user@git.example.com/'], 'it names a user (user@host)'],
    [['https://git.example.com/team-a/?x=1'], 'a query or fragment cannot be a prefix'],
  ];
  for (const [value, text] of BAD) {
    it(`refuses ${JSON.stringify(value)} when the manager starts`, () => {
      let thrown: unknown;
      try {
        controller({ allowedUrls: value });
      } catch (error) {
        thrown = error;
      }
      expect(isSwarmError(thrown) && thrown.code).toBe(ErrorCodes.CONFIG_INVALID);
      expect((thrown as Error).message).toContain(text);
    });
  }
});
