// apimachinery meta/v1 shapes shared by every object (ObjectMeta, ListMeta, OwnerReference, ...).
import { define, t } from './schema.js';

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';
export const metaName = (name: string): string => `${META}.${name}`;

export const OwnerReference = define(
  metaName('OwnerReference'),
  {
    apiVersion: t.string,
    kind: t.string,
    name: t.string,
    uid: t.string,
    controller: t.boolean,
    blockOwnerDeletion: t.boolean,
  },
  { required: ['apiVersion', 'kind', 'name', 'uid'] },
);

export const ManagedFieldsEntry = define(metaName('ManagedFieldsEntry'), {
  manager: t.string,
  operation: t.string,
  apiVersion: t.string,
  time: t.time,
  fieldsType: t.string,
  fieldsV1: t.any,
  subresource: t.string,
});

export const ObjectMeta = define(metaName('ObjectMeta'), {
  name: t.string,
  generateName: t.string,
  namespace: t.string,
  selfLink: t.string,
  uid: t.string,
  resourceVersion: t.string,
  generation: t.int64,
  creationTimestamp: t.time,
  deletionTimestamp: t.time,
  deletionGracePeriodSeconds: t.int64,
  labels: t.stringMap,
  annotations: t.stringMap,
  ownerReferences: t.mergeList(OwnerReference, 'uid'),
  finalizers: t.list(t.string, { patch: { strategy: 'merge' }, listType: 'set' }),
  managedFields: t.list(ManagedFieldsEntry),
});

export const ListMeta = define(metaName('ListMeta'), {
  selfLink: t.string,
  resourceVersion: t.string,
  continue: t.string,
  remainingItemCount: t.int64,
});

export const Condition = define(
  metaName('Condition'),
  {
    type: t.string,
    status: t.string,
    observedGeneration: t.int64,
    lastTransitionTime: t.time,
    reason: t.string,
    message: t.string,
  },
  { required: ['type', 'status', 'lastTransitionTime', 'reason', 'message'] },
);

export const LabelSelectorRequirement = define(
  metaName('LabelSelectorRequirement'),
  { key: t.string, operator: t.string, values: t.list(t.string) },
  { required: ['key', 'operator'] },
);

export const LabelSelector = define(metaName('LabelSelector'), {
  matchLabels: t.stringMap,
  matchExpressions: t.list(LabelSelectorRequirement),
});

export const Preconditions = define(metaName('Preconditions'), { uid: t.string, resourceVersion: t.string });

export const DeleteOptions = define(
  metaName('DeleteOptions'),
  {
    kind: t.string,
    apiVersion: t.string,
    gracePeriodSeconds: t.int64,
    preconditions: Preconditions,
    orphanDependents: t.boolean,
    propagationPolicy: t.string,
    dryRun: t.list(t.string),
    ignoreStoreReadErrorWithClusterBreakingPotential: t.boolean,
  },
  {
    gvk: ['', 'admission.k8s.io', 'apps', 'coordination.k8s.io', 'discovery.k8s.io', 'policy'].map((group) => ({
      group,
      version: 'v1',
      kind: 'DeleteOptions',
    })),
  },
);
