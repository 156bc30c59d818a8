// policy/v1 PodDisruptionBudgets and networking.k8s.io/v1 NetworkPolicies, as the 1.32 OpenAPI
// spec describes them: stored and validated only (no disruption controller keeps a budget's
// status, evictions do not consult budgets, and no network plugin enforces a policy).
import { define, t } from './schema.js';
import { Condition, LabelSelector, ObjectMeta } from './types-meta.js';

const meta = { apiVersion: t.string, kind: t.string, metadata: ObjectMeta };

define(
  'io.k8s.api.policy.v1.PodDisruptionBudget',
  {
    ...meta,
    spec: define('io.k8s.api.policy.v1.PodDisruptionBudgetSpec', {
      maxUnavailable: t.intOrString,
      minAvailable: t.intOrString,
      selector: LabelSelector,
      unhealthyPodEvictionPolicy: t.enum('AlwaysAllow', 'IfHealthyBudget'),
    }),
    status: define(
      'io.k8s.api.policy.v1.PodDisruptionBudgetStatus',
      {
        conditions: t.mergeList(Condition, 'type'),
        currentHealthy: t.int32,
        desiredHealthy: t.int32,
        disruptedPods: t.map(t.time),
        disruptionsAllowed: t.int32,
        expectedPods: t.int32,
        observedGeneration: t.int64,
      },
      { required: ['disruptionsAllowed', 'currentHealthy', 'desiredHealthy', 'expectedPods'] },
    ),
  },
  { gvk: [{ group: 'policy', version: 'v1', kind: 'PodDisruptionBudget' }] },
);

const NetworkPolicyPort = define('io.k8s.api.networking.v1.NetworkPolicyPort', {
  endPort: t.int32,
  port: t.intOrString,
  protocol: t.enum('SCTP', 'TCP', 'UDP'),
});
const NetworkPolicyPeer = define('io.k8s.api.networking.v1.NetworkPolicyPeer', {
  ipBlock: define(
    'io.k8s.api.networking.v1.IPBlock',
    { cidr: t.string, except: t.list(t.string, { listType: 'atomic' }) },
    { required: ['cidr'] },
  ),
  namespaceSelector: LabelSelector,
  podSelector: LabelSelector,
});
const ports = t.list(NetworkPolicyPort, { listType: 'atomic' });
const peers = t.list(NetworkPolicyPeer, { listType: 'atomic' });

define(
  'io.k8s.api.networking.v1.NetworkPolicy',
  {
    ...meta,
    spec: define('io.k8s.api.networking.v1.NetworkPolicySpec', {
      egress: t.list(define('io.k8s.api.networking.v1.NetworkPolicyEgressRule', { ports, to: peers }), { listType: 'atomic' }),
      ingress: t.list(define('io.k8s.api.networking.v1.NetworkPolicyIngressRule', { from: peers, ports }), { listType: 'atomic' }),
      podSelector: LabelSelector,
      policyTypes: t.list(t.enum('Egress', 'Ingress'), { listType: 'atomic' }),
    }),
  },
  { gvk: [{ group: 'networking.k8s.io', version: 'v1', kind: 'NetworkPolicy' }] },
);
