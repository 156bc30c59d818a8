// RBAC objects as pkg/apis/rbac/validation/validation.go checks them (ValidateRole,
// ValidateClusterRole, ValidatePolicyRule, ValidateRoleBinding(Update),
// ValidateClusterRoleBinding, ValidateRoleBindingSubject), after the v1 defaults
// (pkg/apis/rbac/v1/defaults.go) filled in the API groups a client may leave out.
import type { KObject } from '../store/store.js';
import { fieldError, GoLiteral, goStrings, path, type FieldError, type FieldPath } from './field-errors.js';
import { isDNS1123Subdomain, type NameValidator } from './names.js';
import type { Loose } from './loose.js';

export const RBAC_GROUP = 'rbac.authorization.k8s.io';
export const RBAC_KINDS = new Set(['Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding']);

/**
 * ValidateRBACName is path.IsValidPathSegmentName (staging/src/k8s.io/apimachinery/pkg/api/validation/path/name.go):
 * RBAC names may hold `:` (system:discovery), only `.`, `..`, `/` and `%` are refused.
 */
export const nameIsPathSegment: NameValidator = (name, prefix) => {
  if (!prefix) {
    for (const illegal of ['.', '..']) if (name === illegal) return [`may not be '${illegal}'`];
  }
  return ['/', '%'].filter((illegal) => name.includes(illegal)).map((illegal) => `may not contain '${illegal}'`);
};

/** SetDefaults_Subject, SetDefaults_RoleBinding, SetDefaults_ClusterRoleBinding. */
export function defaultBinding(binding: KObject): void {
  const roleRef = binding.roleRef as Loose | undefined;
  if (roleRef && !roleRef.apiGroup) roleRef.apiGroup = RBAC_GROUP;
  for (const subject of (binding.subjects ?? []) as Loose[]) {
    if (!subject.apiGroup && (subject.kind === 'User' || subject.kind === 'Group')) subject.apiGroup = RBAC_GROUP;
  }
}

const strings = (value: unknown): string[] => (Array.isArray(value) ? (value as string[]) : []);

function validatePolicyRule(rule: Loose, namespaced: boolean, at: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  if (strings(rule.verbs).length === 0)
    errors.push(fieldError.required(at.child('verbs').toString(), 'verbs must contain at least one value'));
  const urls = strings(rule.nonResourceURLs);
  if (urls.length > 0) {
    if (namespaced)
      errors.push(
        fieldError.invalid(at.child('nonResourceURLs').toString(), goStrings(urls), 'namespaced rules cannot apply to non-resource URLs'),
      );
    if (strings(rule.apiGroups).length > 0 || strings(rule.resources).length > 0 || strings(rule.resourceNames).length > 0) {
      errors.push(
        fieldError.invalid(
          at.child('nonResourceURLs').toString(),
          goStrings(urls),
          'rules cannot apply to both regular resources and non-resource URLs',
        ),
      );
    }
    return errors;
  }
  if (strings(rule.apiGroups).length === 0)
    errors.push(fieldError.required(at.child('apiGroups').toString(), 'resource rules must supply at least one api group'));
  if (strings(rule.resources).length === 0)
    errors.push(fieldError.required(at.child('resources').toString(), 'resource rules must supply at least one resource'));
  return errors;
}

/** ValidateRole / ValidateClusterRole, after ValidateObjectMeta. */
export function validateRole(role: KObject): FieldError[] {
  const namespaced = role.kind === 'Role';
  const errors = ((role.rules ?? []) as Loose[]).flatMap((rule, i) => validatePolicyRule(rule ?? {}, namespaced, path('rules').index(i)));
  const aggregation = role.aggregationRule as Loose | undefined;
  if (!namespaced && aggregation && strings(aggregation.clusterRoleSelectors).length === 0) {
    errors.push(
      fieldError.required(
        'aggregationRule.clusterRoleSelectors',
        'at least one clusterRoleSelector required if aggregationRule is non-nil',
      ),
    );
  }
  return errors;
}

function validateSubject(subject: Loose, namespaced: boolean, at: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const name = (subject.name ?? '') as string;
  const apiGroup = (subject.apiGroup ?? '') as string;
  if (!name) errors.push(fieldError.required(at.child('name').toString()));
  switch (subject.kind) {
    case 'ServiceAccount':
      // ValidateServiceAccountName: a DNS-1123 subdomain
      if (name) for (const message of isDNS1123Subdomain(name)) errors.push(fieldError.invalid(at.child('name').toString(), name, message));
      if (apiGroup) errors.push(fieldError.notSupported(at.child('apiGroup').toString(), apiGroup, ['']));
      if (!namespaced && !subject.namespace) errors.push(fieldError.required(at.child('namespace').toString()));
      break;
    case 'User':
    case 'Group':
      if (apiGroup !== RBAC_GROUP) errors.push(fieldError.notSupported(at.child('apiGroup').toString(), apiGroup, [RBAC_GROUP]));
      break;
    default:
      errors.push(fieldError.notSupported(at.child('kind').toString(), subject.kind ?? '', ['ServiceAccount', 'User', 'Group']));
  }
  return errors;
}

/** ValidateRoleBinding / ValidateClusterRoleBinding, after ValidateObjectMeta. */
export function validateBinding(binding: KObject): FieldError[] {
  const namespaced = binding.kind === 'RoleBinding';
  const errors: FieldError[] = [];
  const roleRef = (binding.roleRef ?? {}) as Loose;
  if ((roleRef.apiGroup ?? '') !== RBAC_GROUP)
    errors.push(fieldError.notSupported('roleRef.apiGroup', roleRef.apiGroup ?? '', [RBAC_GROUP]));
  const kinds = namespaced ? ['Role', 'ClusterRole'] : ['ClusterRole'];
  if (!kinds.includes(roleRef.kind as string)) errors.push(fieldError.notSupported('roleRef.kind', roleRef.kind ?? '', kinds));
  const name = (roleRef.name ?? '') as string;
  if (!name) errors.push(fieldError.required('roleRef.name'));
  else for (const message of nameIsPathSegment(name, false)) errors.push(fieldError.invalid('roleRef.name', name, message));
  ((binding.subjects ?? []) as Loose[]).forEach((subject, i) =>
    errors.push(...validateSubject(subject ?? {}, namespaced, path('subjects').index(i))),
  );
  return errors;
}

const roleRefLiteral = (roleRef: Loose): GoLiteral =>
  new GoLiteral(
    `rbac.RoleRef{APIGroup:${JSON.stringify(roleRef.apiGroup ?? '')}, Kind:${JSON.stringify(roleRef.kind ?? '')}, Name:${JSON.stringify(roleRef.name ?? '')}}`,
  );

/** ValidateRoleBindingUpdate / ValidateClusterRoleBindingUpdate: a binding's roleRef never changes. */
export function validateBindingUpdate(binding: KObject, old: KObject): FieldError[] {
  const errors = validateBinding(binding);
  const now = (binding.roleRef ?? {}) as Loose;
  const before = (old.roleRef ?? {}) as Loose;
  if (now.apiGroup !== before.apiGroup || now.kind !== before.kind || now.name !== before.name) {
    errors.push(fieldError.invalid('roleRef', roleRefLiteral(now), 'cannot change roleRef'));
  }
  return errors;
}
