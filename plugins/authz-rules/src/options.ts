import { ANONYMOUS_USER, UNAUTHENTICATED_GROUP } from '@swarm/plugin-sdk/access';
import { isSwarmError } from '@swarm/plugin-sdk';
import { parseExpression } from '@swarm/plugin-sdk/helpers';
import { SCOPES, type Binding, type ImageAccess, type RulesConfig, type Scope } from './binding.js';
import { RulesErrors } from './errors.js';
import { ROLES, type Role } from './roles.js';
import { suggest } from './suggest.js';

const OPTION_KEYS = ['bindings', 'anonymous', 'images'] as const;
const BINDING_KEYS = ['user', 'group', 'role', 'scope', 'nodes'] as const;
const IMAGE_ACCESS: readonly ImageAccess[] = ['owned', 'everyone', 'scoped'];

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'string' ? JSON.stringify(value) : typeof value;
}

function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function checkKeys(record: Readonly<Record<string, unknown>>, known: readonly string[], path: (key: string) => string): void {
  for (const key of Object.keys(record)) {
    if (!known.includes(key)) throw RulesErrors.unknownOption({ path: path(key), key, known, suggestion: suggest(key, known) });
  }
}

function oneOf<T extends string>(value: unknown, known: readonly T[], path: string, what: string): T {
  if (typeof value === 'string' && (known as readonly string[]).includes(value)) return value as T;
  const suggestion = typeof value === 'string' ? suggest(value, known) : undefined;
  throw RulesErrors.unknownValue({ path, what, value, known, suggestion });
}

function subject(raw: Readonly<Record<string, unknown>>, path: string): { user: string } | { group: string } {
  const { user, group } = raw;
  if ((user === undefined) === (group === undefined)) {
    throw RulesErrors.invalidOption({ path, reason: 'give exactly one of user and group (who the role is for)' });
  }
  const key = user === undefined ? 'group' : 'user';
  const name = user ?? group;
  if (typeof name !== 'string' || name.trim() === '') {
    throw RulesErrors.invalidOption({ path: `${path}.${key}`, reason: `a non-empty name is needed, got ${describe(name)}` });
  }
  // The anonymous caller's rights are the `anonymous` option's alone, so that `anonymous: false` means what it says.
  if ((key === 'user' && name === ANONYMOUS_USER) || (key === 'group' && name === UNAUTHENTICATED_GROUP)) {
    throw RulesErrors.invalidOption({
      path: `${path}.${key}`,
      reason: `${name} is the anonymous caller: say what it may do with the option anonymous ('view' or false)`,
    });
  }
  return key === 'user' ? { user: name } : { group: name };
}

function scopeOf(raw: Readonly<Record<string, unknown>>, role: Role, who: { user: string } | { group: string }, path: string): Scope {
  if (role === 'admin') {
    if (raw.scope !== undefined && raw.scope !== 'all') {
      throw RulesErrors.invalidOption({
        path: `${path}.scope`,
        reason: `the admin role reaches everything: leave scope out (or "all"), got ${describe(raw.scope)}`,
      });
    }
    return 'all';
  }
  const scope = raw.scope === undefined ? ('group' in who ? 'team' : 'own') : oneOf(raw.scope, SCOPES, `${path}.scope`, 'scope');
  // Teams are the caller's first group that is not `system:*`: a system group is never one.
  if (scope === 'team' && 'group' in who && who.group.startsWith('system:')) {
    throw RulesErrors.invalidOption({
      path: `${path}.scope`,
      reason: `${who.group} is never a team (the manager labels objects with the caller's first group that is not system:*); use scope own or all`,
    });
  }
  return scope;
}

function nodesOf(raw: unknown, path: string): string[] {
  if (raw === undefined) return [];
  const list = typeof raw === 'string' ? [raw] : raw;
  if (!Array.isArray(list) || list.length === 0) {
    throw RulesErrors.invalidOption({
      path,
      reason: `a constraint expression ('zone==a') or a non-empty list of them is needed, got ${describe(raw)}`,
    });
  }
  return list.map((expression: unknown, index) => {
    const at = typeof raw === 'string' ? path : `${path}[${index}]`;
    if (typeof expression !== 'string')
      throw RulesErrors.invalidOption({ path: at, reason: `a constraint expression is needed, got ${describe(expression)}` });
    try {
      if (parseExpression(expression).soft) {
        throw RulesErrors.invalidNodes({
          path: at,
          expression,
          reason: 'a node limit cannot be soft (~): it would be dropped when no node meets it',
        });
      }
    } catch (error) {
      if (RulesErrors.invalidNodes.is(error)) throw error;
      throw RulesErrors.invalidNodes(
        { path: at, expression, reason: isSwarmError(error) ? error.message : String(error) },
        { cause: error },
      );
    }
    return expression;
  });
}

function binding(raw: unknown, index: number): Binding {
  const path = `bindings[${index}]`;
  if (!isRecord(raw))
    throw RulesErrors.invalidOption({ path, reason: `an object { user | group, role, scope, nodes } is needed, got ${describe(raw)}` });
  checkKeys(raw, BINDING_KEYS, (key) => `${path}.${key}`);
  const who = subject(raw, path);
  if (raw.role === undefined)
    throw RulesErrors.invalidOption({ path: `${path}.role`, reason: `a role is needed: one of ${ROLES.join(', ')}` });
  const role = oneOf(raw.role, ROLES, `${path}.role`, 'role');
  return { name: path, ...who, role, scope: scopeOf(raw, role, who, path), nodes: nodesOf(raw.nodes, `${path}.nodes`) };
}

function anonymousBinding(raw: unknown): Binding | undefined {
  if (raw === undefined || raw === false) return undefined;
  if (raw !== 'view')
    throw RulesErrors.invalidOption({
      path: 'anonymous',
      reason: `false (the anonymous caller may do nothing) or "view" (it may see everything) is needed, got ${describe(raw)}`,
    });
  return { name: 'anonymous', user: ANONYMOUS_USER, role: 'view', scope: 'all', nodes: [] };
}

/** The options of an `authz: [['rules', { ... }]]` entry, checked: a coded error names the first wrong option path. */
export function parseRulesOptions(options: unknown): RulesConfig {
  if (!isRecord(options)) throw RulesErrors.optionsNotObject({ got: describe(options) });
  checkKeys(options, OPTION_KEYS, (key) => key);
  const anonymous = anonymousBinding(options.anonymous);
  const images = options.images === undefined ? 'owned' : oneOf(options.images, IMAGE_ACCESS, 'images', 'image access');
  const list = options.bindings ?? [];
  if (!Array.isArray(list))
    throw RulesErrors.invalidOption({ path: 'bindings', reason: `a list of bindings is needed, got ${describe(list)}` });
  // Refused rather than taken: a config that locks every caller out is a mistake, not a policy.
  if (list.length === 0 && anonymous === undefined) {
    throw RulesErrors.invalidOption({
      path: 'bindings',
      reason: "at least one binding is needed, e.g. [{ group: 'admins', role: 'admin' }]: without one nobody may do anything",
    });
  }
  return { bindings: list.map(binding), anonymous, images };
}
