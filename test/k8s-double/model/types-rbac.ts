// rbac.authorization.k8s.io/v1 shapes (staging/src/k8s.io/api/rbac/v1/types.go): Roles and
// ClusterRoles hold PolicyRules; RoleBindings and ClusterRoleBindings tie Subjects to a RoleRef.
// Their lists are atomic in the published OpenAPI (no merge keys), so a strategic merge patch
// replaces them whole, as it does on a real cluster.
import { define, t } from './schema.js';
import { LabelSelector, ObjectMeta } from './types-meta.js';

const meta = { apiVersion: t.string, kind: t.string, metadata: ObjectMeta };
const RBAC = 'io.k8s.api.rbac.v1';
const gvk = (kind: string) => [{ group: 'rbac.authorization.k8s.io', version: 'v1', kind }];

const PolicyRule = define(
  `${RBAC}.PolicyRule`,
  {
    verbs: t.list(t.string, { listType: 'atomic' }),
    apiGroups: t.list(t.string, { listType: 'atomic' }),
    resources: t.list(t.string, { listType: 'atomic' }),
    resourceNames: t.list(t.string, { listType: 'atomic' }),
    nonResourceURLs: t.list(t.string, { listType: 'atomic' }),
  },
  { required: ['verbs'] },
);

const Subject = define(
  `${RBAC}.Subject`,
  { kind: t.string, apiGroup: t.string, name: t.string, namespace: t.string },
  { required: ['kind', 'name'] },
);

const RoleRef = define(
  `${RBAC}.RoleRef`,
  { apiGroup: t.string, kind: t.string, name: t.string },
  { required: ['apiGroup', 'kind', 'name'] },
);

define(`${RBAC}.Role`, { ...meta, rules: t.list(PolicyRule, { listType: 'atomic' }) }, { gvk: gvk('Role') });

define(
  `${RBAC}.ClusterRole`,
  {
    ...meta,
    rules: t.list(PolicyRule, { listType: 'atomic' }),
    aggregationRule: define(`${RBAC}.AggregationRule`, { clusterRoleSelectors: t.list(LabelSelector, { listType: 'atomic' }) }),
  },
  { gvk: gvk('ClusterRole') },
);

define(
  `${RBAC}.RoleBinding`,
  { ...meta, subjects: t.list(Subject, { listType: 'atomic' }), roleRef: RoleRef },
  { gvk: gvk('RoleBinding'), required: ['roleRef'] },
);

define(
  `${RBAC}.ClusterRoleBinding`,
  { ...meta, subjects: t.list(Subject, { listType: 'atomic' }), roleRef: RoleRef },
  { gvk: gvk('ClusterRoleBinding'), required: ['roleRef'] },
);
