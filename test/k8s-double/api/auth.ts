// Authentication (client certificates signed by the cluster CA: CN is the user, O the groups;
// bearer tokens) and authorization. Service accounts (`system:serviceaccount:<ns>:<name>`) are
// authorized by the stored RBAC objects alone, as the real RBAC authorizer does (rbac.ts): what
// no binding grants is refused. Every other authenticated user may do everything unless a test's
// deny rule matches; refusals get the RBAC authorizer's 403 text either way.
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { isServiceAccount, type RbacAuthorizer } from './rbac.js';
import type { RequestInfo } from './request-info.js';
import { type ApiError, errors } from './status.js';

export interface UserInfo {
  username: string;
  uid?: string;
  groups: string[];
}

/** A rule that forbids what it matches; every field left out matches anything. */
export interface DenyRule {
  user?: string;
  group?: string;
  verbs?: string[];
  /** Resource, or resource/subresource (e.g. `pods/exec`). */
  resources?: string[];
  apiGroups?: string[];
  namespaces?: string[];
  names?: string[];
  /** Non-resource URL paths (e.g. `/api`). */
  paths?: string[];
}

export const ANONYMOUS: UserInfo = { username: 'system:anonymous', groups: ['system:unauthenticated'] };
const PUBLIC_PATHS = ['/version', '/healthz', '/livez', '/readyz'];

export class Authenticator {
  private readonly tokens = new Map<string, UserInfo>();

  addToken(token: string, user: UserInfo): void {
    this.tokens.set(token, { ...user, groups: [...new Set([...user.groups, 'system:authenticated'])] });
  }

  removeToken(token: string): void {
    this.tokens.delete(token);
  }

  /** The user a request comes from; a token the cluster does not know is 401 Unauthorized. */
  authenticate(request: IncomingMessage): UserInfo {
    const header = request.headers.authorization;
    if (header) {
      const match = /^Bearer\s+(\S+)$/i.exec(header);
      const user = match ? this.tokens.get(match[1]!) : undefined;
      if (!user) throw errors.unauthorized();
      return user;
    }
    const socket = request.socket as TLSSocket;
    if (socket.authorized) {
      const certificate = socket.getPeerCertificate();
      const subject = certificate.subject as unknown as Record<string, string | string[]> | undefined;
      const cn = subject?.CN;
      if (typeof cn === 'string' && cn) {
        const organizations = subject?.O;
        const groups = organizations === undefined ? [] : Array.isArray(organizations) ? organizations : [organizations];
        return { username: cn, groups: [...groups, 'system:authenticated'] };
      }
    }
    return ANONYMOUS;
  }
}

function ruleMatches(rule: DenyRule, user: UserInfo, info: RequestInfo): boolean {
  if (rule.user && rule.user !== user.username) return false;
  if (rule.group && !user.groups.includes(rule.group)) return false;
  if (rule.verbs && !rule.verbs.includes(info.verb)) return false;
  if (info.kind === 'nonResource') return Boolean(rule.paths?.includes(info.path)) && !rule.resources;
  if (rule.paths) return false;
  const resource = info.subresource ? `${info.resource}/${info.subresource}` : info.resource;
  if (rule.resources && !rule.resources.includes(resource) && !rule.resources.includes('*')) return false;
  if (rule.apiGroups && !rule.apiGroups.includes(info.group)) return false;
  if (rule.namespaces && !rule.namespaces.includes(info.namespace ?? '')) return false;
  if (rule.names && !rule.names.includes(info.name ?? '')) return false;
  return true;
}

export class Authorizer {
  denyRules: DenyRule[] = [];

  /** Without one, service accounts are treated as any other user. */
  constructor(private readonly rbac?: RbacAuthorizer) {}

  /** Whether the request is allowed, and why (the reason a SelfSubjectAccessReview shows). */
  decide(user: UserInfo, info: RequestInfo): { allowed: boolean; reason: string } {
    if (user.username === ANONYMOUS.username)
      return { allowed: info.kind === 'nonResource' && PUBLIC_PATHS.includes(info.path), reason: '' };
    if (user.groups.includes('system:masters')) return { allowed: true, reason: '' };
    if (this.rbac && isServiceAccount(user)) return this.rbac.authorize(user, info);
    const denied = this.denyRules.some((rule) => ruleMatches(rule, user, info));
    return denied ? { allowed: false, reason: '' } : { allowed: true, reason: 'no deny rule of the double matches' };
  }

  allowed(user: UserInfo, info: RequestInfo): boolean {
    return this.decide(user, info).allowed;
  }

  /** The last 1,000 refused requests (the 403 messages), oldest first: what a test asserts its client never met. */
  readonly refusals: Array<{ user: string; message: string }> = [];

  /** Throws the RBAC authorizer's 403 Forbidden when the request is not allowed. */
  authorize(user: UserInfo, info: RequestInfo): void {
    if (this.allowed(user, info)) return;
    const error = forbidden(user, info);
    this.refusals.push({ user: user.username, message: error.status.message ?? '' });
    if (this.refusals.length > 1000) this.refusals.shift();
    throw error;
  }
}

export function forbidden(user: UserInfo, info: RequestInfo): ApiError {
  if (info.kind === 'nonResource')
    return errors.forbidden({ group: '', resource: '' }, '', `User "${user.username}" cannot ${info.verb} path "${info.path}"`);
  const resource = info.subresource ? `${info.resource}/${info.subresource}` : info.resource;
  const scope = info.namespace ? `in the namespace "${info.namespace}"` : 'at the cluster scope';
  const why = `User "${user.username}" cannot ${info.verb} resource "${resource}" in API group "${info.group}" ${scope}`;
  return errors.forbidden({ group: info.group, resource: info.resource }, info.name ?? '', why);
}
