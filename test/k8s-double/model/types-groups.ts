// Shapes outside core/v1 that the double serves: Leases (node heartbeats), EndpointSlices,
// access reviews, Evictions and the metrics.k8s.io readings.
import { define, t } from './schema.js';
import { ObjectReference } from './types-core.js';
import { DeleteOptions, ObjectMeta } from './types-meta.js';

const meta = { apiVersion: t.string, kind: t.string, metadata: ObjectMeta };

define(
  'io.k8s.api.coordination.v1.Lease',
  {
    ...meta,
    spec: define('io.k8s.api.coordination.v1.LeaseSpec', {
      holderIdentity: t.string,
      leaseDurationSeconds: t.int32,
      acquireTime: t.microTime,
      renewTime: t.microTime,
      leaseTransitions: t.int32,
      strategy: t.string,
      preferredHolder: t.string,
    }),
  },
  { gvk: [{ group: 'coordination.k8s.io', version: 'v1', kind: 'Lease' }] },
);

const Endpoint = define(
  'io.k8s.api.discovery.v1.Endpoint',
  {
    addresses: t.list(t.string, { listType: 'set' }),
    conditions: define('io.k8s.api.discovery.v1.EndpointConditions', { ready: t.boolean, serving: t.boolean, terminating: t.boolean }),
    hostname: t.string,
    targetRef: ObjectReference,
    deprecatedTopology: t.stringMap,
    nodeName: t.string,
    zone: t.string,
    hints: t.any,
  },
  { required: ['addresses'] },
);
define(
  'io.k8s.api.discovery.v1.EndpointSlice',
  {
    ...meta,
    addressType: t.enum('FQDN', 'IPv4', 'IPv6'),
    endpoints: t.list(Endpoint, { listType: 'atomic' }),
    ports: t.list(
      define('io.k8s.api.discovery.v1.EndpointPort', { name: t.string, protocol: t.string, port: t.int32, appProtocol: t.string }),
      { listType: 'atomic' },
    ),
  },
  { gvk: [{ group: 'discovery.k8s.io', version: 'v1', kind: 'EndpointSlice' }], required: ['addressType', 'endpoints'] },
);

const ResourceAttributes = define('io.k8s.api.authorization.v1.ResourceAttributes', {
  namespace: t.string,
  verb: t.string,
  group: t.string,
  version: t.string,
  resource: t.string,
  subresource: t.string,
  name: t.string,
  fieldSelector: t.any,
  labelSelector: t.any,
});
define(
  'io.k8s.api.authorization.v1.SelfSubjectAccessReview',
  {
    ...meta,
    spec: define('io.k8s.api.authorization.v1.SelfSubjectAccessReviewSpec', {
      resourceAttributes: ResourceAttributes,
      nonResourceAttributes: define('io.k8s.api.authorization.v1.NonResourceAttributes', { path: t.string, verb: t.string }),
    }),
    status: define('io.k8s.api.authorization.v1.SubjectAccessReviewStatus', {
      allowed: t.boolean,
      denied: t.boolean,
      reason: t.string,
      evaluationError: t.string,
    }),
  },
  { gvk: [{ group: 'authorization.k8s.io', version: 'v1', kind: 'SelfSubjectAccessReview' }], required: ['spec'] },
);
define(
  'io.k8s.api.authentication.v1.SelfSubjectReview',
  {
    ...meta,
    status: define('io.k8s.api.authentication.v1.SelfSubjectReviewStatus', {
      userInfo: define('io.k8s.api.authentication.v1.UserInfo', {
        username: t.string,
        uid: t.string,
        groups: t.list(t.string),
        extra: t.map(t.list(t.string)),
      }),
    }),
  },
  { gvk: [{ group: 'authentication.k8s.io', version: 'v1', kind: 'SelfSubjectReview' }] },
);
define(
  'io.k8s.api.policy.v1.Eviction',
  { ...meta, deleteOptions: DeleteOptions },
  { gvk: [{ group: 'policy', version: 'v1', kind: 'Eviction' }] },
);

const ContainerMetrics = define('io.k8s.metrics.pkg.apis.metrics.v1beta1.ContainerMetrics', { name: t.string, usage: t.quantityMap });
define(
  'io.k8s.metrics.pkg.apis.metrics.v1beta1.NodeMetrics',
  { ...meta, timestamp: t.time, window: t.string, usage: t.quantityMap },
  { gvk: [{ group: 'metrics.k8s.io', version: 'v1beta1', kind: 'NodeMetrics' }] },
);
define(
  'io.k8s.metrics.pkg.apis.metrics.v1beta1.PodMetrics',
  { ...meta, timestamp: t.time, window: t.string, containers: t.list(ContainerMetrics) },
  { gvk: [{ group: 'metrics.k8s.io', version: 'v1beta1', kind: 'PodMetrics' }] },
);
