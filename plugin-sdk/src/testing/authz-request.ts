import {
  ANONYMOUS_USER,
  OWNER_LABEL,
  TEAM_LABEL,
  UNAUTHENTICATED_GROUP,
  type AccessObject,
  type AccessRequest,
  type Caller,
} from '../access.js';

/** A caller as an authenticator would give it: `testCaller('alice', ['team-a'])`. */
export function testCaller(user: string, groups: readonly string[] = [], method = 'TLS'): Caller {
  return { user, groups, method };
}

/** The caller no authenticator knew. */
export const ANONYMOUS_CALLER: Caller = Object.freeze({ user: ANONYMOUS_USER, groups: Object.freeze([UNAUTHENTICATED_GROUP]), method: '' });

/** An object owned as the manager labels what a caller creates: `ownedObject('container', 'web', 'alice', 'team-a')`. */
export function ownedObject(kind: AccessObject['kind'], name: string, owner?: string, team?: string, node = 'node1'): AccessObject {
  const labels: Record<string, string> = {};
  if (owner !== undefined) labels[OWNER_LABEL] = owner;
  if (team !== undefined) labels[TEAM_LABEL] = team;
  return { kind, id: `${kind}-${name}`, name, labels, node };
}

/**
 * An access request as the host asks it, with a plausible wire request (a `POST` for verbs that
 * change something, the object's name in the path) for authorizers that read it.
 */
export function authzRequest(caller: Caller, action: string, object?: AccessObject, body?: unknown): AccessRequest {
  const [kind = 'unknown', verb = ''] = action.split('.');
  const reads = /^(list|inspect|logs|stats|top|changes|export|archive|history|save|search|info|version|ping|events|df)$/.test(verb);
  const path = object?.name !== undefined ? `/${kind}s/${encodeURIComponent(object.name)}/${verb}` : `/${kind}s/${verb}`;
  const encoded = body === undefined ? undefined : new TextEncoder().encode(JSON.stringify(body));
  return {
    caller,
    action,
    ...(object === undefined ? {} : { object }),
    ...(body === undefined ? {} : { body }),
    wire: {
      method: reads ? 'GET' : 'POST',
      uri: `/v1.41${path}`,
      headers: encoded === undefined ? {} : { 'content-type': 'application/json' },
      ...(encoded === undefined ? {} : { body: encoded }),
      peerCertificates: [],
    },
  };
}
