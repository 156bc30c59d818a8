import { describe, expect, it } from 'vitest';
import { ErrorCodes, isSwarmError } from '@swarm/plugin-sdk';
import { parseRulesOptions } from '@swarm/authz-rules';

function refusal(options: unknown): string {
  try {
    parseRulesOptions(options);
  } catch (error) {
    expect(isSwarmError(error, ErrorCodes.CONFIG_INVALID)).toBe(true);
    return (error as Error).message;
  }
  throw new Error(`accepted ${JSON.stringify(options)}`);
}

const admins = { group: 'admins', role: 'admin' };

describe('rules options', () => {
  it('names the option path and the role meant for a mistyped role', () => {
    const options = { bindings: [admins, { user: 'alice', role: 'view' }, { group: 'team-a', role: 'edt' }] };
    expect(refusal(options)).toBe('bindings[2].role: unknown role "edt" (did you mean edit?)');
  });

  it('lists the roles when no role is close', () => {
    expect(refusal({ bindings: [{ group: 'a', role: 'superuser' }] })).toBe(
      'bindings[0].role: unknown role "superuser" (one of view, operate, edit, admin)',
    );
    expect(refusal({ bindings: [{ group: 'a' }] })).toBe('bindings[0].role: a role is needed: one of view, operate, edit, admin');
  });

  it('suggests keys for mistyped options, at the top and in a binding', () => {
    expect(refusal({ bindigns: [] })).toBe('bindigns: unknown option "bindigns" (did you mean bindings?)');
    expect(refusal({ bindings: [{ group: 'a', role: 'view', scop: 'all' }] })).toBe(
      'bindings[0].scop: unknown option "scop" (did you mean scope?)',
    );
    expect(refusal({ bindings: [{ group: 'a', role: 'view', scope: 'everything' }] })).toBe(
      'bindings[0].scope: unknown scope "everything" (one of own, team, all)',
    );
  });

  it('wants exactly one of user and group, by a non-empty name', () => {
    expect(refusal({ bindings: [{ user: 'a', group: 'b', role: 'view' }] })).toMatch(/^bindings\[0\]: give exactly one of user and group/);
    expect(refusal({ bindings: [{ role: 'view' }] })).toMatch(/^bindings\[0\]: give exactly one of user and group/);
    expect(refusal({ bindings: [{ user: ' ', role: 'view' }] })).toMatch(/^bindings\[0\]\.user: a non-empty name is needed/);
    expect(refusal({ bindings: ['admins'] })).toMatch(
      /^bindings\[0\]: an object \{ user \| group, role, scope, nodes \} is needed, got "admins"/,
    );
  });

  it('keeps the anonymous caller to the anonymous option', () => {
    expect(refusal({ bindings: [{ user: 'system:anonymous', role: 'view' }] })).toMatch(
      /^bindings\[0\]\.user: system:anonymous is the anonymous caller: .*option anonymous/,
    );
    expect(refusal({ bindings: [{ group: 'system:unauthenticated', role: 'view', scope: 'all' }] })).toMatch(
      /^bindings\[0\]\.group: system:unauthenticated/,
    );
    expect(refusal({ bindings: [admins], anonymous: true })).toMatch(/^anonymous: false \(the anonymous caller may do nothing\) or "view"/);
  });

  it('refuses a system group as a team, and an admin limited to a scope', () => {
    expect(refusal({ bindings: [{ group: 'system:authenticated', role: 'view' }] })).toMatch(
      /^bindings\[0\]\.scope: system:authenticated is never a team/,
    );
    expect(parseRulesOptions({ bindings: [{ group: 'system:authenticated', role: 'view', scope: 'all' }] }).bindings[0]?.scope).toBe('all');
    expect(refusal({ bindings: [{ group: 'admins', role: 'admin', scope: 'team' }] })).toMatch(
      /^bindings\[0\]\.scope: the admin role reaches everything/,
    );
  });

  it('checks node limits as constraint expressions, hard only', () => {
    expect(refusal({ bindings: [{ group: 'b', role: 'edit', nodes: 'zone=b' }] })).toMatch(
      /^bindings\[0\]\.nodes: "zone=b" is not a constraint expression/,
    );
    expect(refusal({ bindings: [{ group: 'b', role: 'edit', nodes: ['zone==b', 'rack=='] }] })).toMatch(
      /^bindings\[0\]\.nodes\[1\]: "rack==" is not/,
    );
    expect(refusal({ bindings: [{ group: 'b', role: 'edit', nodes: 'zone==~b' }] })).toMatch(/cannot be soft/);
    expect(refusal({ bindings: [{ group: 'b', role: 'edit', nodes: [] }] })).toMatch(/^bindings\[0\]\.nodes: a constraint expression/);
    expect(parseRulesOptions({ bindings: [{ group: 'b', role: 'edit', nodes: 'zone==b' }] }).bindings[0]?.nodes).toEqual(['zone==b']);
  });

  it('refuses options that lock everyone out, and options that are not an object', () => {
    expect(refusal({})).toMatch(/^bindings: at least one binding is needed/);
    expect(refusal({ bindings: [] })).toMatch(/^bindings: at least one binding is needed/);
    expect(refusal({ bindings: { group: 'a' } })).toBe('bindings: a list of bindings is needed, got object');
    expect(refusal(null)).toBe('options: an object { bindings, anonymous, images } is needed, got null');
    expect(refusal({ bindings: [admins], images: 'al' })).toMatch(/^images: unknown image access "al"/);
    expect(parseRulesOptions({ bindings: [], anonymous: 'view' }).anonymous?.scope).toBe('all');
  });

  it("fills in defaults: a group reaches its team, a user their own objects, an admin everything; images are their makers'", () => {
    const config = parseRulesOptions({ bindings: [{ group: 'a', role: 'edit' }, { user: 'u', role: 'view' }, admins] });
    expect(config.bindings.map((binding) => [binding.name, binding.scope])).toEqual([
      ['bindings[0]', 'team'],
      ['bindings[1]', 'own'],
      ['bindings[2]', 'all'],
    ]);
    expect(config.images).toBe('owned');
    expect(config.anonymous).toBeUndefined();
  });
});
