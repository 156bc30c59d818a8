import { describe, expect, it } from 'vitest';
import { ANONYMOUS_CALLER, authzRequest, ownedObject, testCaller } from '@swarm/plugin-sdk/testing';
import { OWNER_LABEL, TEAM_LABEL, type AccessDecision } from '@swarm/plugin-sdk/access';
import { EXAMPLE_OPTIONS, refusal, rules } from './rules.js';

const authz = rules();
const decide = (...args: Parameters<typeof authzRequest>): AccessDecision => authz.authorize(authzRequest(...args)) as AccessDecision;
const allowed = (...args: Parameters<typeof authzRequest>): boolean => decide(...args).allowed;

const amy = testCaller('amy', ['team-a']);
const alice = testCaller('alice', ['team-a']);
const bob = testCaller('bob', ['team-b']);
const cleo = testCaller('cleo', ['team-c']);
const olga = testCaller('olga', ['ops']);
const root = testCaller('root', ['admins']);
const nobody = testCaller('nobody', ['strangers']);

const aliceWeb = ownedObject('container', 'alice-web', 'alice', 'team-a');
const bobDb = ownedObject('container', 'bob-db', 'bob', 'team-b');
const cleoApp = ownedObject('container', 'cleo-app', 'cleo', 'team-c');
const old = ownedObject('container', 'old');

describe('rules authorizer: roles over scopes', () => {
  it("lets a team editor edit, operate and view their team's containers, and nobody else's", () => {
    for (const action of ['container.remove', 'container.stop', 'container.logs', 'container.inspect', 'container.exec']) {
      expect(allowed(amy, action, aliceWeb)).toBe(true);
      expect(allowed(amy, action, bobDb)).toBe(false);
      expect(allowed(amy, action, old)).toBe(false);
    }
    expect(allowed(amy, 'container.create')).toBe(true);
    expect(allowed(amy, 'container.list')).toBe(true);
  });

  it('says who, what, what they have and how to fix it, naming the binding', () => {
    expect(refusal(decide(cleo, 'container.remove', cleoApp))).toEqual({
      reason:
        'user cleo (groups team-c) may not container.remove container cleo-app: they have role view on team team-c (bindings[5]); bind role edit',
      rule: 'bindings[5]',
    });
    expect(refusal(decide(amy, 'container.remove', bobDb))).toEqual({
      reason:
        'user amy (groups team-a) may not container.remove container bob-db (owner bob, team team-b): they have role edit on team team-a (bindings[0]), which do not reach it; bind role edit on a scope that covers it',
      rule: 'bindings[0]',
    });
    expect(refusal(decide(olga, 'container.stop', old)).reason).toBe(
      'user olga (groups ops) may not container.stop container old: they have role view on everything (bindings[2]); bind role operate',
    );
  });

  it("combines a user's and their groups' bindings: alice operates what she owns in any team", () => {
    const elsewhere = ownedObject('container', 'side', 'alice', 'team-z');
    expect(allowed(alice, 'container.restart', elsewhere)).toBe(true);
    expect(allowed(alice, 'container.remove', elsewhere)).toBe(false);
    expect(refusal(decide(alice, 'container.remove', elsewhere)).reason).toContain(
      '(owner alice, team team-z): they have role edit on team team-a (bindings[0]), which do not reach it',
    );
  });

  it('lets a view-all binding see and inspect everything, unlabelled objects too, and change nothing', () => {
    expect(allowed(olga, 'container.inspect', old)).toBe(true);
    expect(allowed(olga, 'container.inspect', bobDb)).toBe(true);
    expect(allowed(olga, 'system.events')).toBe(true);
    expect(allowed(olga, 'container.create')).toBe(false);
    expect(authz.visibility!(olga).sees(old)).toBe(true);
  });

  it('lets admins do anything, unknown actions included', () => {
    for (const action of ['plugin.install', 'unknown', 'container.unknown', 'container.prune', 'image.remove', 'swarm.metrics']) {
      expect(allowed(root, action, action.startsWith('container') ? old : undefined)).toBe(true);
    }
  });

  it('fails closed on actions the table does not list', () => {
    expect(refusal(decide(amy, 'container.frobnicate', aliceWeb)).reason).toBe(
      'user amy (groups team-a) may not container.frobnicate container alice-web: only the admin role may do an action the rules do not list; they have role edit on team team-a (bindings[0]); bind role admin',
    );
    expect(allowed(olga, 'plugin.install')).toBe(false);
    expect(allowed(olga, 'plugin.list')).toBe(true);
    expect(allowed(amy, 'unknown')).toBe(false);
  });

  it("keeps actions on every owner's objects to scope all", () => {
    expect(refusal(decide(amy, 'container.prune')).reason).toBe(
      'user amy (groups team-a) may not container.prune: container.prune reaches the objects of every owner, so it needs role edit with scope all; they have role edit on team team-a (bindings[0]); bind role edit with scope all',
    );
    expect(allowed(olga, 'swarm.metrics')).toBe(true);
    expect(allowed(amy, 'swarm.metrics')).toBe(false);
  });

  it('refuses a caller no binding names, and answers ping and health to everyone', () => {
    expect(refusal(decide(nobody, 'container.list'))).toEqual({
      reason:
        'user nobody (groups strangers) may not container.list: no binding names them; add one for user nobody or one of their groups to the rules bindings',
      rule: 'bindings',
    });
    expect(allowed(nobody, 'system.ping')).toBe(true);
    expect(allowed(ANONYMOUS_CALLER, 'swarm.health')).toBe(true);
  });

  it('gives the anonymous caller nothing by default, and a view of everything with anonymous: view', () => {
    expect(refusal(decide(ANONYMOUS_CALLER, 'container.list')).reason).toBe(
      "user system:anonymous (groups system:unauthenticated) may not container.list: the anonymous caller may do nothing here; authenticate, or set the rules option anonymous: 'view'",
    );
    const open = rules({ ...EXAMPLE_OPTIONS, anonymous: 'view' });
    expect(open.authorize(authzRequest(ANONYMOUS_CALLER, 'container.inspect', bobDb))).toEqual({ allowed: true });
    expect(refusal(open.authorize(authzRequest(ANONYMOUS_CALLER, 'container.create'))).rule).toBe('anonymous');
    expect(open.visibility!(ANONYMOUS_CALLER).sees(old)).toBe(true);
  });
});

describe("rules authorizer: the manager's labels", () => {
  const forged = { Image: 'busybox', Labels: { app: 'web', [OWNER_LABEL]: 'bob' } };

  it('refuses a create or update that sets them, unless the caller is an admin', () => {
    for (const action of ['container.create', 'network.create', 'volume.create']) {
      expect(refusal(decide(amy, action, undefined, forged))).toEqual({
        reason: `user amy (groups team-a) may not ${action}: label com.docker.swarm.owner is written by the manager, and only the admin role may set it; remove it from the request`,
        rule: 'manager-labels',
      });
      expect(allowed(root, action, undefined, forged)).toBe(true);
    }
    expect(allowed(amy, 'container.update', aliceWeb, { Labels: { [TEAM_LABEL]: 'team-b' } })).toBe(false);
  });

  it('reads the old list form of Labels, and lets other labels through', () => {
    expect(
      refusal(decide(amy, 'volume.create', undefined, { Name: 'v', Labels: [`${TEAM_LABEL}=team-b`, `${OWNER_LABEL}=x`] })).reason,
    ).toContain('labels com.docker.swarm.owner and com.docker.swarm.team are written');
    expect(allowed(amy, 'container.create', undefined, { Image: 'busybox', Labels: { 'com.docker.swarm.ownerish': 'x' } })).toBe(true);
    expect(allowed(amy, 'container.create', undefined, 'not json')).toBe(true);
  });
});

describe("rules authorizer: a team's nodes", () => {
  it("returns the team's limit as placement on container.create, naming the binding", () => {
    expect(decide(bob, 'container.create', undefined, { Image: 'busybox' })).toEqual({
      allowed: true,
      placement: [{ expression: 'zone==b', rule: 'bindings[4] (group team-b): nodes zone==b' }],
    });
    expect(decide(amy, 'container.create')).toEqual({ allowed: true });
    expect(decide(bob, 'container.start', bobDb)).toEqual({ allowed: true });
  });

  it('lets an unlimited binding win, and otherwise takes the limit of the team the container joins', () => {
    // Its first group makes the container team-b's: team-b's binding reaches it, team-a's does not.
    expect(decide(testCaller('both', ['team-b', 'team-a']), 'container.create')).toMatchObject({ placement: [{ expression: 'zone==b' }] });
    expect(decide(testCaller('boss', ['team-b', 'admins']), 'container.create')).toEqual({ allowed: true });
    const limited = rules({
      bindings: [
        { group: 'team-x', role: 'edit', nodes: ['zone==x', 'disk==ssd'] },
        { group: 'team-y', role: 'edit', nodes: 'zone==y' },
      ],
    });
    const xy = testCaller('xy', ['system:authenticated', 'team-y', 'team-x']);
    expect(limited.authorize(authzRequest(xy, 'container.create'))).toEqual({
      allowed: true,
      placement: [{ expression: 'zone==y', rule: 'bindings[1] (group team-y): nodes zone==y' }],
    });
    const intoX = { kind: 'container' as const, labels: { [TEAM_LABEL]: 'team-x' } };
    expect(limited.authorize(authzRequest(xy, 'container.create', intoX))).toMatchObject({
      placement: [{ expression: 'zone==x' }, { expression: 'disk==ssd' }],
    });
  });
});

describe('rules authorizer: creates', () => {
  it("refuses a create that would make what the caller's bindings do not reach", () => {
    expect(refusal(decide(testCaller('zed', ['team-z', 'team-a']), 'volume.create', undefined, { Name: 'v' }))).toEqual({
      reason:
        'user zed (groups team-z, team-a) may not volume.create: the new volume would belong to team team-z (their first group that is not system:*), and they have role edit on team team-a (bindings[0]), which do not reach it; bind role edit for that team or on their own objects',
      rule: 'bindings[0]',
    });
    const solo = rules({ bindings: [{ user: 'sam', role: 'edit', scope: 'team' }] });
    expect(refusal(solo.authorize(authzRequest(testCaller('sam', ['system:authenticated']), 'network.create'))).reason).toContain(
      'the new network would belong to no team (they have no group that is not system:*)',
    );
  });

  it('lets an own-scope editor create whatever their team', () => {
    const own = rules({ bindings: [{ user: 'sam', role: 'edit' }] });
    expect(own.authorize(authzRequest(testCaller('sam', ['team-q']), 'container.create'))).toEqual({ allowed: true });
    expect(own.authorize(authzRequest(testCaller('sam', []), 'volume.create'))).toEqual({ allowed: true });
  });
});

describe('rules authorizer: shared objects', () => {
  const busybox = ownedObject('image', 'busybox:latest');
  const bridge = ownedObject('network', 'node1/bridge');

  it("keeps an image a team made (owner labels) that team's by default, as a container is", () => {
    const made = ownedObject('image', 'alice-app:1', 'alice', 'team-a');
    expect(allowed(amy, 'image.inspect', made)).toBe(true);
    expect(allowed(amy, 'image.remove', made)).toBe(true);
    for (const action of ['image.inspect', 'image.history', 'image.save', 'image.tag', 'image.push', 'image.remove'])
      expect(allowed(bob, action, made)).toBe(false);
    expect(authz.visibility!(bob).sees(made)).toBe(false);
    expect(authz.visibility!(amy).sees(made)).toBe(true);
    expect(authz.visibility!(olga).sees(made)).toBe(true);
    const everyone = rules({ ...EXAMPLE_OPTIONS, images: 'everyone' });
    expect(everyone.visibility!(bob).sees(made)).toBe(true);
  });

  it('lets every bound caller read images by default, and editors remove them', () => {
    expect(allowed(amy, 'image.inspect', busybox)).toBe(true);
    expect(allowed(amy, 'image.tag', busybox)).toBe(true);
    expect(allowed(amy, 'image.pull')).toBe(true);
    expect(allowed(amy, 'image.remove', busybox)).toBe(true);
    expect(allowed(olga, 'image.remove', busybox)).toBe(false);
    expect(allowed(nobody, 'image.inspect', busybox)).toBe(false);
    expect(authz.visibility!(amy).sees(busybox)).toBe(true);
    expect(authz.visibility!(nobody).sees(busybox)).toBe(false);
  });

  it('scopes images by labels like the rest with images: scoped', () => {
    const scoped = rules({ ...EXAMPLE_OPTIONS, images: 'scoped' });
    expect(scoped.authorize(authzRequest(amy, 'image.inspect', busybox)).allowed as boolean).toBe(false);
    expect(scoped.visibility!(amy).sees(busybox)).toBe(false);
    expect(scoped.visibility!(olga).sees(busybox)).toBe(true);
  });

  it('shows the predefined networks to everyone and lets editors connect to them', () => {
    expect(authz.visibility!(cleo).sees(bridge)).toBe(true);
    expect(authz.visibility!(cleo).sees(ownedObject('network', 'bridge'))).toBe(true);
    expect(authz.visibility!(cleo).sees(ownedObject('network', 'node1/bridges'))).toBe(false);
    expect(allowed(amy, 'network.connect', bridge)).toBe(true);
    expect(allowed(cleo, 'network.connect', bridge)).toBe(false);
  });
});

describe('rules authorizer: visibility', () => {
  it("shows a caller their team's and their own objects only; unlabelled ones to scope all alone", () => {
    const amySees = authz.visibility!(amy);
    expect([aliceWeb, bobDb, cleoApp, old].map((object) => amySees.sees(object))).toEqual([true, false, false, false]);
    const aliceSees = authz.visibility!(alice);
    expect(aliceSees.sees(ownedObject('volume', 'v', 'alice', 'team-z'))).toBe(true);
    expect(authz.visibility!(olga).sees(old)).toBe(true);
    expect(authz.visibility!(nobody).sees(aliceWeb)).toBe(false);
    expect(authz.visibility!(ANONYMOUS_CALLER).sees(aliceWeb)).toBe(false);
  });

  it('lets a user binding with scope team reach every team the user is in', () => {
    const uma = testCaller('uma', ['team-b', 'system:authenticated', 'team-c']);
    const own = rules({ bindings: [{ user: 'uma', role: 'edit', scope: 'team' }] });
    expect(own.visibility!(uma).sees(bobDb)).toBe(true);
    expect(own.visibility!(uma).sees(cleoApp)).toBe(true);
    expect(own.visibility!(uma).sees(aliceWeb)).toBe(false);
    expect(own.authorize(authzRequest(uma, 'container.remove', cleoApp))).toEqual({ allowed: true });
    expect(refusal(own.authorize(authzRequest(uma, 'container.remove', aliceWeb))).reason).toContain(
      'role edit on their teams (team-b, team-c) (bindings[0])',
    );
  });
});
