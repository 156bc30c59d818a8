// The resources the double serves, as discovery lists them, with the fields each one can be
// selected by (the API server's per-resource field label conversions).
import type { KObject } from '../store/store.js';
// the shapes each resource's schema names
import './types-core.js';
import './types-groups.js';
import './types-policies.js';
import './types-rbac.js';
import './types-storage.js';

export interface ResourceDef {
  group: string;
  version: string;
  /** Plural, lower case: the URL segment. */
  resource: string;
  singular: string;
  kind: string;
  namespaced: boolean;
  shortNames?: string[];
  categories?: string[];
  verbs: string[];
  /** OpenAPI name of the type. */
  schema: string;
  /** Subresources served (`status`, `binding`, `log`, `exec`, `attach`, `eviction`). */
  subresources: string[];
  /** Selectable fields beyond metadata.name (and metadata.namespace when namespaced). */
  fields?: (object: KObject) => Record<string, string>;
  /** Status is kept by writes to the resource and changed through the status subresource. */
  statusSubresource?: boolean;
  /** Served only while the metrics API is switched on. */
  metrics?: boolean;
  /** Only `create` (reviews): nothing is stored. */
  virtual?: boolean;
}

const READ_WRITE = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
type Loose = Record<string, unknown> | undefined;
const get = (object: unknown, ...path: string[]): string => {
  let value: unknown = object;
  for (const part of path) value = (value as Loose)?.[part];
  return value === undefined || value === null ? '' : String(value);
};

export const RESOURCES: ResourceDef[] = [
  {
    group: '',
    version: 'v1',
    resource: 'pods',
    singular: 'pod',
    kind: 'Pod',
    namespaced: true,
    shortNames: ['po'],
    categories: ['all'],
    verbs: READ_WRITE,
    schema: 'io.k8s.api.core.v1.Pod',
    subresources: ['attach', 'binding', 'eviction', 'exec', 'log', 'status'],
    statusSubresource: true,
    fields: (pod) => ({
      'spec.nodeName': get(pod, 'spec', 'nodeName'),
      'spec.restartPolicy': get(pod, 'spec', 'restartPolicy'),
      'spec.schedulerName': get(pod, 'spec', 'schedulerName'),
      'spec.serviceAccountName': get(pod, 'spec', 'serviceAccountName'),
      'spec.hostNetwork': String(Boolean((pod.spec as Loose)?.hostNetwork)),
      'status.phase': get(pod, 'status', 'phase'),
      'status.podIP': get(pod, 'status', 'podIP'),
      'status.nominatedNodeName': get(pod, 'status', 'nominatedNodeName'),
    }),
  },
  {
    group: '',
    version: 'v1',
    resource: 'nodes',
    singular: 'node',
    kind: 'Node',
    namespaced: false,
    shortNames: ['no'],
    verbs: READ_WRITE,
    schema: 'io.k8s.api.core.v1.Node',
    subresources: ['status'],
    statusSubresource: true,
    fields: (node) => ({ 'spec.unschedulable': String(Boolean((node.spec as Loose)?.unschedulable)) }),
  },
  {
    group: '',
    version: 'v1',
    resource: 'services',
    singular: 'service',
    kind: 'Service',
    namespaced: true,
    shortNames: ['svc'],
    categories: ['all'],
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    schema: 'io.k8s.api.core.v1.Service',
    subresources: ['status'],
    statusSubresource: true,
  },
  {
    group: '',
    version: 'v1',
    resource: 'endpoints',
    singular: 'endpoints',
    kind: 'Endpoints',
    namespaced: true,
    shortNames: ['ep'],
    verbs: READ_WRITE,
    schema: 'io.k8s.api.core.v1.Endpoints',
    subresources: [],
  },
  {
    group: '',
    version: 'v1',
    resource: 'namespaces',
    singular: 'namespace',
    kind: 'Namespace',
    namespaced: false,
    shortNames: ['ns'],
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
    schema: 'io.k8s.api.core.v1.Namespace',
    subresources: ['status'],
    statusSubresource: true,
    fields: (namespace) => ({ 'status.phase': get(namespace, 'status', 'phase') }),
  },
  {
    group: '',
    version: 'v1',
    resource: 'events',
    singular: 'event',
    kind: 'Event',
    namespaced: true,
    shortNames: ['ev'],
    verbs: READ_WRITE,
    schema: 'io.k8s.api.core.v1.Event',
    subresources: [],
    fields: (event) => ({
      'involvedObject.kind': get(event, 'involvedObject', 'kind'),
      'involvedObject.namespace': get(event, 'involvedObject', 'namespace'),
      'involvedObject.name': get(event, 'involvedObject', 'name'),
      'involvedObject.uid': get(event, 'involvedObject', 'uid'),
      'involvedObject.apiVersion': get(event, 'involvedObject', 'apiVersion'),
      'involvedObject.resourceVersion': get(event, 'involvedObject', 'resourceVersion'),
      'involvedObject.fieldPath': get(event, 'involvedObject', 'fieldPath'),
      reason: get(event, 'reason'),
      reportingComponent: get(event, 'reportingComponent'),
      source: get(event, 'source', 'component'),
      type: get(event, 'type'),
    }),
  },
  {
    group: '',
    version: 'v1',
    resource: 'configmaps',
    singular: 'configmap',
    kind: 'ConfigMap',
    namespaced: true,
    shortNames: ['cm'],
    verbs: READ_WRITE,
    schema: 'io.k8s.api.core.v1.ConfigMap',
    subresources: [],
  },
  {
    group: '',
    version: 'v1',
    resource: 'secrets',
    singular: 'secret',
    kind: 'Secret',
    namespaced: true,
    verbs: READ_WRITE,
    schema: 'io.k8s.api.core.v1.Secret',
    subresources: [],
    fields: (secret) => ({ type: get(secret, 'type') }),
  },
  {
    group: '',
    version: 'v1',
    resource: 'serviceaccounts',
    singular: 'serviceaccount',
    kind: 'ServiceAccount',
    namespaced: true,
    shortNames: ['sa'],
    verbs: READ_WRITE,
    schema: 'io.k8s.api.core.v1.ServiceAccount',
    subresources: [],
  },
  {
    group: '',
    version: 'v1',
    resource: 'persistentvolumeclaims',
    singular: 'persistentvolumeclaim',
    kind: 'PersistentVolumeClaim',
    namespaced: true,
    shortNames: ['pvc'],
    verbs: READ_WRITE,
    schema: 'io.k8s.api.core.v1.PersistentVolumeClaim',
    subresources: ['status'],
    statusSubresource: true,
  },
  {
    group: '',
    version: 'v1',
    resource: 'persistentvolumes',
    singular: 'persistentvolume',
    kind: 'PersistentVolume',
    namespaced: false,
    shortNames: ['pv'],
    verbs: READ_WRITE,
    schema: 'io.k8s.api.core.v1.PersistentVolume',
    subresources: ['status'],
    statusSubresource: true,
  },
  {
    group: 'storage.k8s.io',
    version: 'v1',
    resource: 'storageclasses',
    singular: 'storageclass',
    kind: 'StorageClass',
    namespaced: false,
    shortNames: ['sc'],
    verbs: READ_WRITE,
    schema: 'io.k8s.api.storage.v1.StorageClass',
    subresources: [],
  },
  {
    group: 'coordination.k8s.io',
    version: 'v1',
    resource: 'leases',
    singular: 'lease',
    kind: 'Lease',
    namespaced: true,
    verbs: READ_WRITE,
    schema: 'io.k8s.api.coordination.v1.Lease',
    subresources: [],
  },
  {
    group: 'policy',
    version: 'v1',
    resource: 'poddisruptionbudgets',
    singular: 'poddisruptionbudget',
    kind: 'PodDisruptionBudget',
    namespaced: true,
    shortNames: ['pdb'],
    verbs: READ_WRITE,
    schema: 'io.k8s.api.policy.v1.PodDisruptionBudget',
    subresources: ['status'],
    statusSubresource: true,
  },
  {
    group: 'networking.k8s.io',
    version: 'v1',
    resource: 'networkpolicies',
    singular: 'networkpolicy',
    kind: 'NetworkPolicy',
    namespaced: true,
    shortNames: ['netpol'],
    verbs: READ_WRITE,
    schema: 'io.k8s.api.networking.v1.NetworkPolicy',
    subresources: [],
  },
  {
    group: 'rbac.authorization.k8s.io',
    version: 'v1',
    resource: 'roles',
    singular: 'role',
    kind: 'Role',
    namespaced: true,
    verbs: READ_WRITE,
    schema: 'io.k8s.api.rbac.v1.Role',
    subresources: [],
  },
  {
    group: 'rbac.authorization.k8s.io',
    version: 'v1',
    resource: 'rolebindings',
    singular: 'rolebinding',
    kind: 'RoleBinding',
    namespaced: true,
    verbs: READ_WRITE,
    schema: 'io.k8s.api.rbac.v1.RoleBinding',
    subresources: [],
  },
  {
    group: 'rbac.authorization.k8s.io',
    version: 'v1',
    resource: 'clusterroles',
    singular: 'clusterrole',
    kind: 'ClusterRole',
    namespaced: false,
    verbs: READ_WRITE,
    schema: 'io.k8s.api.rbac.v1.ClusterRole',
    subresources: [],
  },
  {
    group: 'rbac.authorization.k8s.io',
    version: 'v1',
    resource: 'clusterrolebindings',
    singular: 'clusterrolebinding',
    kind: 'ClusterRoleBinding',
    namespaced: false,
    verbs: READ_WRITE,
    schema: 'io.k8s.api.rbac.v1.ClusterRoleBinding',
    subresources: [],
  },
  {
    group: 'discovery.k8s.io',
    version: 'v1',
    resource: 'endpointslices',
    singular: 'endpointslice',
    kind: 'EndpointSlice',
    namespaced: true,
    verbs: READ_WRITE,
    schema: 'io.k8s.api.discovery.v1.EndpointSlice',
    subresources: [],
  },
  {
    group: 'authorization.k8s.io',
    version: 'v1',
    resource: 'selfsubjectaccessreviews',
    singular: 'selfsubjectaccessreview',
    kind: 'SelfSubjectAccessReview',
    namespaced: false,
    verbs: ['create'],
    schema: 'io.k8s.api.authorization.v1.SelfSubjectAccessReview',
    subresources: [],
    virtual: true,
  },
  {
    group: 'authentication.k8s.io',
    version: 'v1',
    resource: 'selfsubjectreviews',
    singular: 'selfsubjectreview',
    kind: 'SelfSubjectReview',
    namespaced: false,
    verbs: ['create'],
    schema: 'io.k8s.api.authentication.v1.SelfSubjectReview',
    subresources: [],
    virtual: true,
  },
  {
    group: 'metrics.k8s.io',
    version: 'v1beta1',
    resource: 'nodes',
    singular: '',
    kind: 'NodeMetrics',
    namespaced: false,
    verbs: ['get', 'list'],
    schema: 'io.k8s.metrics.pkg.apis.metrics.v1beta1.NodeMetrics',
    subresources: [],
    metrics: true,
    virtual: true,
  },
  {
    group: 'metrics.k8s.io',
    version: 'v1beta1',
    resource: 'pods',
    singular: '',
    kind: 'PodMetrics',
    namespaced: true,
    verbs: ['get', 'list'],
    schema: 'io.k8s.metrics.pkg.apis.metrics.v1beta1.PodMetrics',
    subresources: [],
    metrics: true,
    virtual: true,
  },
];

/** The store's name for a resource: `pods`, `leases.coordination.k8s.io`. */
export const storeName = (def: Pick<ResourceDef, 'group' | 'resource'>): string =>
  def.group ? `${def.resource}.${def.group}` : def.resource;

export const apiVersionOf = (def: Pick<ResourceDef, 'group' | 'version'>): string =>
  def.group ? `${def.group}/${def.version}` : def.version;

export function findResource(group: string, version: string, resource: string): ResourceDef | undefined {
  return RESOURCES.find((def) => def.group === group && def.version === version && def.resource === resource);
}

/** Every selectable field of a resource, for checking field selectors. */
export function supportedFields(def: ResourceDef): Set<string> {
  const names = new Set(['metadata.name']);
  if (def.namespaced) names.add('metadata.namespace');
  if (def.fields) {
    const sample = { metadata: { name: '' } } as KObject;
    for (const field of Object.keys(def.fields(sample))) names.add(field);
  }
  return names;
}

export function selectableFields(def: ResourceDef, object: KObject): Record<string, string> {
  const fields: Record<string, string> = { 'metadata.name': object.metadata.name };
  if (def.namespaced) fields['metadata.namespace'] = object.metadata.namespace ?? '';
  return def.fields ? { ...fields, ...def.fields(object) } : fields;
}
