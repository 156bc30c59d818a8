// The default ClusterRoles and ClusterRoleBindings every cluster's API server makes at start
// (plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go, ClusterRoles and
// ClusterRoleBindings), those a client needs before any binding of its own: discovery, the
// self reviews, the public health and version paths, and cluster-admin for system:masters.
import type { Json } from '../model/decode.js';

const GROUP = 'rbac.authorization.k8s.io';
const metadata = (name: string) => ({
  name,
  labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults' },
  annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' },
});

export const BOOTSTRAP_CLUSTER_ROLES: Json[] = [
  {
    metadata: metadata('cluster-admin'),
    rules: [
      { apiGroups: ['*'], resources: ['*'], verbs: ['*'] },
      { nonResourceURLs: ['*'], verbs: ['*'] },
    ],
  },
  {
    metadata: metadata('system:discovery'),
    rules: [
      {
        nonResourceURLs: [
          '/api',
          '/api/*',
          '/apis',
          '/apis/*',
          '/healthz',
          '/livez',
          '/openapi',
          '/openapi/*',
          '/readyz',
          '/version',
          '/version/',
        ],
        verbs: ['get'],
      },
    ],
  },
  {
    metadata: metadata('system:basic-user'),
    rules: [
      { apiGroups: ['authorization.k8s.io'], resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'], verbs: ['create'] },
      { apiGroups: ['authentication.k8s.io'], resources: ['selfsubjectreviews'], verbs: ['create'] },
    ],
  },
  {
    metadata: metadata('system:public-info-viewer'),
    rules: [{ nonResourceURLs: ['/healthz', '/livez', '/readyz', '/version', '/version/'], verbs: ['get'] }],
  },
];

const binding = (role: string, groups: string[]): Json => ({
  metadata: metadata(role),
  roleRef: { apiGroup: GROUP, kind: 'ClusterRole', name: role },
  subjects: groups.map((name) => ({ apiGroup: GROUP, kind: 'Group', name })),
});

export const BOOTSTRAP_CLUSTER_ROLE_BINDINGS: Json[] = [
  binding('cluster-admin', ['system:masters']),
  binding('system:discovery', ['system:authenticated']),
  binding('system:basic-user', ['system:authenticated']),
  binding('system:public-info-viewer', ['system:authenticated', 'system:unauthenticated']),
];
