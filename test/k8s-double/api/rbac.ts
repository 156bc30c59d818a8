// The RBAC authorizer over the stored Roles, ClusterRoles and their bindings, ported from
// plugin/pkg/auth/authorizer/rbac/rbac.go (Authorize, authorizingVisitor, RuleAllows),
// pkg/registry/rbac/validation/rule.go (VisitRulesFor, appliesTo, appliesToUser) and
// pkg/apis/rbac/v1/evaluation_helpers.go (VerbMatches, APIGroupMatches, ResourceMatches,
// ResourceNameMatches, NonResourceURLMatches). It allows or has no opinion: it never denies.
import type { Loose } from '../model/loose.js';
import type { KObject, Store } from '../store/store.js';
import type { UserInfo } from './auth.js';
import type { RequestInfo } from './request-info.js';

export interface PolicyRule {
  verbs?: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

interface Subject {
  kind: string;
  name: string;
  namespace?: string;
}

const SA_PREFIX = 'system:serviceaccount:';

export const isServiceAccount = (user: UserInfo): boolean => user.username.startsWith(SA_PREFIX);

const verbMatches = (rule: PolicyRule, verb: string): boolean => (rule.verbs ?? []).some((v) => v === '*' || v === verb);
const apiGroupMatches = (rule: PolicyRule, group: string): boolean => (rule.apiGroups ?? []).some((g) => g === '*' || g === group);

/** `*` matches everything, `resource/subresource` exactly, and `*\/subresource` any resource's subresource. */
function resourceMatches(rule: PolicyRule, combined: string, subresource: string): boolean {
  for (const resource of rule.resources ?? []) {
    if (resource === '*' || resource === combined) return true;
    if (!subresource) continue;
    if (resource.length === subresource.length + 2 && resource.startsWith('*/') && resource.endsWith(subresource)) return true;
  }
  return false;
}

const resourceNameMatches = (rule: PolicyRule, name: string): boolean =>
  (rule.resourceNames ?? []).length === 0 || (rule.resourceNames ?? []).includes(name);

function nonResourceURLMatches(rule: PolicyRule, url: string): boolean {
  for (const ruleURL of rule.nonResourceURLs ?? []) {
    if (ruleURL === '*' || ruleURL === url) return true;
    if (ruleURL.endsWith('*') && url.startsWith(ruleURL.replace(/\*+$/, ''))) return true;
  }
  return false;
}

export function ruleAllows(info: RequestInfo, rule: PolicyRule): boolean {
  if (info.kind === 'nonResource') return verbMatches(rule, info.verb) && nonResourceURLMatches(rule, info.path);
  const combined = info.subresource ? `${info.resource}/${info.subresource}` : info.resource;
  return (
    verbMatches(rule, info.verb) &&
    apiGroupMatches(rule, info.group) &&
    resourceMatches(rule, combined, info.subresource ?? '') &&
    resourceNameMatches(rule, info.name ?? '')
  );
}

/** appliesToUser: a ServiceAccount subject without a namespace means the binding's own. */
function appliesToUser(user: UserInfo, subject: Subject, namespace: string): boolean {
  switch (subject.kind) {
    case 'User':
      return user.username === subject.name;
    case 'Group':
      return user.groups.includes(subject.name);
    case 'ServiceAccount': {
      const saNamespace = subject.namespace || namespace;
      return saNamespace !== '' && user.username === `${SA_PREFIX}${saNamespace}:${subject.name}`;
    }
    default:
      return false;
  }
}

function describeSubject(subject: Subject, bindingNamespace: string): string {
  if (subject.kind === 'ServiceAccount') return `${subject.kind} "${subject.name}/${subject.namespace || bindingNamespace}"`;
  return `${subject.kind} "${subject.name}"`;
}

export interface RbacDecision {
  allowed: boolean;
  /** `RBAC: allowed by RoleBinding "x/ns" of Role "y" to ServiceAccount "sa/ns"`, as the API server words it. */
  reason: string;
}

export class RbacAuthorizer {
  constructor(private readonly store: Store) {}

  /** The rules of a roleRef; a binding to a role that does not exist grants nothing. */
  private rules(roleRef: Loose, namespace: string): PolicyRule[] {
    const role =
      roleRef.kind === 'Role'
        ? this.store.peek('roles.rbac.authorization.k8s.io', `${namespace}/${roleRef.name}`)
        : roleRef.kind === 'ClusterRole'
          ? this.store.peek('clusterroles.rbac.authorization.k8s.io', roleRef.name as string)
          : undefined;
    return (role?.rules ?? []) as PolicyRule[];
  }

  /** VisitRulesFor: cluster role bindings first, then the role bindings of the request's namespace. */
  authorize(user: UserInfo, info: RequestInfo): RbacDecision {
    const visit = (binding: KObject, namespace: string, kind: string): string | undefined => {
      const roleRef = (binding.roleRef ?? {}) as Loose;
      const subject = ((binding.subjects ?? []) as unknown as Subject[]).find((s) => appliesToUser(user, s, namespace));
      if (!subject) return undefined;
      if (!this.rules(roleRef, namespace).some((rule) => ruleAllows(info, rule))) return undefined;
      const name = kind === 'RoleBinding' ? `${binding.metadata.name}/${namespace}` : binding.metadata.name;
      return `RBAC: allowed by ${kind} "${name}" of ${roleRef.kind} "${roleRef.name}" to ${describeSubject(subject, namespace)}`;
    };
    for (const binding of this.store.values('clusterrolebindings.rbac.authorization.k8s.io')) {
      const reason = visit(binding, '', 'ClusterRoleBinding');
      if (reason) return { allowed: true, reason };
    }
    const namespace = info.kind === 'resource' ? (info.namespace ?? '') : '';
    if (namespace) {
      for (const binding of this.store.values('rolebindings.rbac.authorization.k8s.io', `${namespace}/`)) {
        const reason = visit(binding, namespace, 'RoleBinding');
        if (reason) return { allowed: true, reason };
      }
    }
    return { allowed: false, reason: '' };
  }
}
