// Storage shapes: PersistentVolumeClaims, PersistentVolumes (core/v1) and StorageClasses
// (storage.k8s.io/v1). Volume sources other than hostPath and local are kept as sent.
import { define, t } from './schema.js';
import { ObjectReference } from './types-core.js';
import { LabelSelector, ObjectMeta } from './types-meta.js';

const meta = { apiVersion: t.string, kind: t.string, metadata: ObjectMeta };
const ACCESS_MODES = t.list(t.enum('ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod'), { listType: 'atomic' });

define(
  'io.k8s.api.core.v1.PersistentVolumeClaim',
  {
    ...meta,
    spec: define('io.k8s.api.core.v1.PersistentVolumeClaimSpec', {
      accessModes: ACCESS_MODES,
      selector: LabelSelector,
      resources: define('io.k8s.api.core.v1.VolumeResourceRequirements', { limits: t.quantityMap, requests: t.quantityMap }),
      volumeName: t.string,
      storageClassName: t.string,
      volumeMode: t.enum('Block', 'Filesystem'),
      dataSource: t.any,
      dataSourceRef: t.any,
      volumeAttributesClassName: t.string,
    }),
    status: define('io.k8s.api.core.v1.PersistentVolumeClaimStatus', {
      phase: t.enum('Bound', 'Lost', 'Pending'),
      accessModes: ACCESS_MODES,
      capacity: t.quantityMap,
      conditions: t.mergeList(t.any, 'type'),
      allocatedResources: t.quantityMap,
      allocatedResourceStatuses: t.stringMap,
      currentVolumeAttributesClassName: t.string,
      modifyVolumeStatus: t.any,
    }),
  },
  { gvk: [{ group: '', version: 'v1', kind: 'PersistentVolumeClaim' }] },
);

const otherSources = Object.fromEntries(
  [
    'gcePersistentDisk',
    'awsElasticBlockStore',
    'glusterfs',
    'nfs',
    'rbd',
    'iscsi',
    'cinder',
    'cephfs',
    'fc',
    'flocker',
    'flexVolume',
    'azureFile',
    'vsphereVolume',
    'quobyte',
    'azureDisk',
    'photonPersistentDisk',
    'portworxVolume',
    'scaleIO',
    'storageos',
    'csi',
  ].map((name) => [name, t.any]),
);

define(
  'io.k8s.api.core.v1.PersistentVolume',
  {
    ...meta,
    spec: define('io.k8s.api.core.v1.PersistentVolumeSpec', {
      capacity: t.quantityMap,
      hostPath: t.ref('io.k8s.api.core.v1.HostPathVolumeSource'),
      local: define('io.k8s.api.core.v1.LocalVolumeSource', { path: t.string, fsType: t.string }, { required: ['path'] }),
      ...otherSources,
      accessModes: ACCESS_MODES,
      claimRef: ObjectReference,
      persistentVolumeReclaimPolicy: t.enum('Delete', 'Recycle', 'Retain'),
      storageClassName: t.string,
      mountOptions: t.list(t.string, { listType: 'atomic' }),
      volumeMode: t.enum('Block', 'Filesystem'),
      nodeAffinity: t.any,
      volumeAttributesClassName: t.string,
    }),
    status: define('io.k8s.api.core.v1.PersistentVolumeStatus', {
      phase: t.enum('Available', 'Bound', 'Failed', 'Pending', 'Released'),
      message: t.string,
      reason: t.string,
      lastPhaseTransitionTime: t.time,
    }),
  },
  { gvk: [{ group: '', version: 'v1', kind: 'PersistentVolume' }] },
);

define(
  'io.k8s.api.storage.v1.StorageClass',
  {
    ...meta,
    provisioner: t.string,
    parameters: t.stringMap,
    reclaimPolicy: t.enum('Delete', 'Recycle', 'Retain'),
    mountOptions: t.list(t.string, { listType: 'atomic' }),
    allowVolumeExpansion: t.boolean,
    volumeBindingMode: t.enum('Immediate', 'WaitForFirstConsumer'),
    allowedTopologies: t.list(t.any, { listType: 'atomic' }),
  },
  { gvk: [{ group: 'storage.k8s.io', version: 'v1', kind: 'StorageClass' }], required: ['provisioner'] },
);
