// Server-side printing: meta.k8s.io/v1 Tables for `kubectl get`, with the columns and cell
// texts the API server's printers produce (pkg/printers/internalversion) for the kinds served.
import type { Json, JsonObject } from '../model/decode.js';
import type { ResourceDef } from '../model/resources.js';
import { asJson, type KObject } from '../store/store.js';
import type { Loose } from '../model/loose.js';

interface Column {
  name: string;
  type: string;
  format?: string;
  description: string;
  priority?: number;
}

/** duration.HumanDuration: 45s, 5m30s, 3h10m, 4d2h, ... */
export function humanDuration(seconds: number): string {
  const s = Math.floor(seconds);
  if (s < -1) return '<invalid>';
  if (s < 0) return '0s';
  if (s < 120) return `${s}s`;
  const minutes = Math.floor(s / 60);
  if (minutes < 10) return s % 60 === 0 ? `${minutes}m` : `${minutes}m${s % 60}s`;
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.floor(s / 3600);
  if (hours < 8) return minutes % 60 === 0 ? `${hours}h` : `${hours}h${minutes % 60}m`;
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) return hours % 24 === 0 ? `${Math.floor(hours / 24)}d` : `${Math.floor(hours / 24)}d${hours % 24}h`;
  if (hours < 24 * 365 * 2) return `${Math.floor(hours / 24)}d`;
  const days = Math.floor(hours / 24) % 365;
  if (hours < 24 * 365 * 8) return days === 0 ? `${Math.floor(hours / 24 / 365)}y` : `${Math.floor(hours / 24 / 365)}y${days}d`;
  return `${Math.floor(hours / 24 / 365)}y`;
}

const since = (time: string | undefined): string => (time ? humanDuration((Date.now() - new Date(time).getTime()) / 1000) : '<unknown>');
const NAME: Column = { name: 'Name', type: 'string', format: 'name', description: 'Name must be unique within a namespace.' };
const AGE: Column = {
  name: 'Age',
  type: 'string',
  description: 'CreationTimestamp is a timestamp representing the server time when this object was created.',
};

function podStatusText(pod: Loose): { reason: string; ready: number; total: number; restarts: string } {
  const status = pod.status ?? {};
  let reason: string = status.reason || status.phase || '';
  const statuses = (status.containerStatuses ?? []) as Loose[];
  let restarts = 0;
  let lastRestart: string | undefined;
  let ready = 0;
  let hasRunning = false;
  for (const cs of [...statuses].reverse()) {
    restarts += cs.restartCount ?? 0;
    const finished = cs.lastState?.terminated?.finishedAt as string | undefined;
    if (finished && (!lastRestart || finished > lastRestart)) lastRestart = finished;
    if (cs.state?.waiting?.reason) reason = cs.state.waiting.reason;
    else if (cs.state?.terminated?.reason) reason = cs.state.terminated.reason;
    else if (cs.state?.terminated)
      reason = cs.state.terminated.signal ? `Signal:${cs.state.terminated.signal}` : `ExitCode:${cs.state.terminated.exitCode}`;
    else if (cs.ready && cs.state?.running) {
      hasRunning = true;
      ready++;
    }
  }
  for (const cs of (status.initContainerStatuses ?? []) as Loose[]) {
    if (cs.state?.terminated?.exitCode === 0) continue;
    const total = (pod.spec?.initContainers ?? []).length;
    const index = (status.initContainerStatuses as Loose[]).indexOf(cs);
    if (cs.state?.terminated) reason = `Init:${cs.state.terminated.reason || `ExitCode:${cs.state.terminated.exitCode}`}`;
    else if (cs.state?.waiting?.reason && cs.state.waiting.reason !== 'PodInitializing') reason = `Init:${cs.state.waiting.reason}`;
    else reason = `Init:${index}/${total}`;
    break;
  }
  if (reason === 'Completed' && hasRunning) reason = 'Running';
  if (pod.metadata.deletionTimestamp) reason = status.reason === 'NodeLost' ? 'Unknown' : 'Terminating';
  const restartText = lastRestart ? `${restarts} (${since(lastRestart)} ago)` : String(restarts);
  return { reason, ready, total: (pod.spec?.containers ?? []).length, restarts: restartText };
}

function nodeStatusText(node: Loose): string {
  const conditions = (node.status?.conditions ?? []) as Loose[];
  const ready = conditions.find((c) => c.type === 'Ready');
  const states = [ready ? (ready.status === 'True' ? 'Ready' : ready.status === 'False' ? 'NotReady' : 'Unknown') : 'Unknown'];
  if (node.spec?.unschedulable) states.push('SchedulingDisabled');
  return states.join(',');
}

function servicePorts(service: Loose): string {
  const ports = (service.spec?.ports ?? []) as Loose[];
  if (ports.length === 0) return '<none>';
  return ports.map((p) => (p.nodePort ? `${p.port}:${p.nodePort}/${p.protocol}` : `${p.port}/${p.protocol}`)).join(',');
}

function endpointsText(endpoints: Loose): string {
  const list: string[] = [];
  for (const subset of (endpoints.subsets ?? []) as Loose[]) {
    for (const address of (subset.addresses ?? []) as Loose[]) {
      const ports = (subset.ports ?? []) as Loose[];
      if (ports.length === 0) list.push(address.ip);
      for (const port of ports) list.push(`${address.ip}:${port.port}`);
    }
  }
  if (list.length === 0) return '<none>';
  return list.length > 3 ? `${list.slice(0, 3).join(',')} + ${list.length - 3} more...` : list.join(',');
}

interface Printer {
  columns: Column[];
  cells: (object: Loose) => Json[];
}

const PRINTERS: Record<string, Printer> = {
  Pod: {
    columns: [
      NAME,
      { name: 'Ready', type: 'string', description: 'The aggregate readiness state of this pod for accepting traffic.' },
      { name: 'Status', type: 'string', description: 'The aggregate status of the containers in this pod.' },
      {
        name: 'Restarts',
        type: 'string',
        description:
          'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.',
      },
      AGE,
      {
        name: 'IP',
        type: 'string',
        priority: 1,
        description: 'IP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.',
      },
      { name: 'Node', type: 'string', priority: 1, description: 'NodeName is a request to schedule this pod onto a specific node.' },
      {
        name: 'Nominated Node',
        type: 'string',
        priority: 1,
        description: 'nominatedNodeName is set only when this pod preempts other pods on the node.',
      },
      {
        name: 'Readiness Gates',
        type: 'string',
        priority: 1,
        description: 'If specified, all readiness gates will be evaluated for pod readiness.',
      },
    ],
    cells: (pod) => {
      const text = podStatusText(pod);
      return [
        pod.metadata.name,
        `${text.ready}/${text.total}`,
        text.reason,
        text.restarts,
        since(pod.metadata.creationTimestamp),
        pod.status?.podIP || '<none>',
        pod.spec?.nodeName || '<none>',
        pod.status?.nominatedNodeName || '<none>',
        '<none>',
      ];
    },
  },
  Node: {
    columns: [
      NAME,
      { name: 'Status', type: 'string', description: 'The status of the node' },
      { name: 'Roles', type: 'string', description: 'The roles of the node' },
      AGE,
      { name: 'Version', type: 'string', description: 'Kubelet Version reported by the node.' },
      { name: 'Internal-IP', type: 'string', priority: 1, description: 'List of addresses reachable to the node.' },
      { name: 'External-IP', type: 'string', priority: 1, description: 'List of addresses reachable to the node.' },
      {
        name: 'OS-Image',
        type: 'string',
        priority: 1,
        description: 'OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).',
      },
      {
        name: 'Kernel-Version',
        type: 'string',
        priority: 1,
        description: "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).",
      },
      {
        name: 'Container-Runtime',
        type: 'string',
        priority: 1,
        description: 'Container runtime version reported by the node through runtime remote API (e.g. containerd://1.4.2).',
      },
    ],
    cells: (node) => {
      const roles = Object.keys(node.metadata.labels ?? {})
        .filter((l) => l.startsWith('node-role.kubernetes.io/'))
        .map((l) => l.slice('node-role.kubernetes.io/'.length));
      const address = (type: string) => ((node.status?.addresses ?? []) as Loose[]).find((a) => a.type === type)?.address ?? '<none>';
      const info = node.status?.nodeInfo ?? {};
      return [
        node.metadata.name,
        nodeStatusText(node),
        roles.length ? roles.sort().join(',') : '<none>',
        since(node.metadata.creationTimestamp),
        info.kubeletVersion ?? '',
        address('InternalIP'),
        address('ExternalIP'),
        info.osImage ?? '',
        info.kernelVersion ?? '',
        info.containerRuntimeVersion ?? '',
      ];
    },
  },
  Service: {
    columns: [
      NAME,
      { name: 'Type', type: 'string', description: 'The type of the service.' },
      { name: 'Cluster-IP', type: 'string', description: 'The IP address of the service.' },
      { name: 'External-IP', type: 'string', description: 'The external IP address of the service.' },
      { name: 'Port(s)', type: 'string', description: 'The ports of the service.' },
      AGE,
      {
        name: 'Selector',
        type: 'string',
        priority: 1,
        description: 'Route service traffic to pods with label keys and values matching this selector.',
      },
    ],
    cells: (service) => [
      service.metadata.name,
      service.spec?.type ?? '',
      service.spec?.clusterIP || '<none>',
      service.spec?.type === 'ExternalName' ? service.spec.externalName : (service.spec?.externalIPs ?? []).join(',') || '<none>',
      servicePorts(service),
      since(service.metadata.creationTimestamp),
      Object.entries(service.spec?.selector ?? {})
        .map(([k, v]) => `${k}=${v}`)
        .join(',') || '<none>',
    ],
  },
  Namespace: {
    columns: [NAME, { name: 'Status', type: 'string', description: 'The status of the namespace' }, AGE],
    cells: (namespace) => [namespace.metadata.name, namespace.status?.phase ?? '', since(namespace.metadata.creationTimestamp)],
  },
  Endpoints: {
    columns: [NAME, { name: 'Endpoints', type: 'string', description: 'Endpoints of the resource' }, AGE],
    cells: (endpoints) => [endpoints.metadata.name, endpointsText(endpoints), since(endpoints.metadata.creationTimestamp)],
  },
  Event: {
    columns: [
      { name: 'Last Seen', type: 'string', description: 'The time at which the most recent occurrence of this event was recorded.' },
      { name: 'Type', type: 'string', description: 'Type of this event (Normal, Warning), new types could be added in the future.' },
      {
        name: 'Reason',
        type: 'string',
        description:
          "This should be a short, machine understandable string that gives the reason for the transition into the object's current status.",
      },
      { name: 'Object', type: 'string', description: 'The object that this event is about.' },
      { name: 'Subobject', type: 'string', priority: 1, description: 'The subobject that this event is about.' },
      { name: 'Source', type: 'string', priority: 1, description: 'The component reporting this event.' },
      { name: 'Message', type: 'string', description: 'A human-readable description of the status of this operation.' },
      { name: 'First Seen', type: 'string', priority: 1, description: 'The time at which the event was first recorded.' },
      { name: 'Count', type: 'string', priority: 1, description: 'The number of times this event has occurred.' },
      { name: 'Name', type: 'string', priority: 1, format: 'name', description: 'Name must be unique within a namespace.' },
    ],
    cells: (event) => [
      since(event.lastTimestamp || event.eventTime || event.metadata.creationTimestamp),
      event.type ?? '',
      event.reason ?? '',
      `${String(event.involvedObject?.kind ?? '').toLowerCase()}/${event.involvedObject?.name ?? ''}`,
      event.involvedObject?.fieldPath ?? '',
      [event.source?.component, event.source?.host].filter(Boolean).join(', '),
      String(event.message ?? '').trim(),
      since(event.firstTimestamp || event.eventTime || event.metadata.creationTimestamp),
      String(event.count ?? 1),
      event.metadata.name,
    ],
  },
};

const MODES: Record<string, string> = { ReadWriteOnce: 'RWO', ReadOnlyMany: 'ROX', ReadWriteMany: 'RWX', ReadWriteOncePod: 'RWOP' };
const modes = (list: string[] | undefined) => (list ?? []).map((m) => MODES[m] ?? m).join(',');
const column = (name: string, description: string, priority = 0): Column => ({ name, type: 'string', description, priority });

Object.assign(PRINTERS, {
  ConfigMap: {
    columns: [NAME, column('Data', 'Data contains the configuration data.'), AGE],
    cells: (o: Loose) => [o.metadata.name, Object.keys({ ...o.data, ...o.binaryData }).length, since(o.metadata.creationTimestamp)],
  },
  Secret: {
    columns: [NAME, column('Type', 'The type of secret'), column('Data', 'Data contains the secret data.'), AGE],
    cells: (o: Loose) => [o.metadata.name, o.type ?? '', Object.keys(o.data ?? {}).length, since(o.metadata.creationTimestamp)],
  },
  ServiceAccount: {
    columns: [
      NAME,
      column(
        'Secrets',
        'Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use.',
      ),
      AGE,
    ],
    cells: (o: Loose) => [o.metadata.name, (o.secrets ?? []).length, since(o.metadata.creationTimestamp)],
  },
  Lease: {
    columns: [NAME, column('Holder', 'The holder of the lease.'), AGE],
    cells: (o: Loose) => [o.metadata.name, o.spec?.holderIdentity ?? '', since(o.metadata.creationTimestamp)],
  },
  PersistentVolumeClaim: {
    columns: [
      NAME,
      column('Status', 'Status represents the current information/status of a persistent volume claim.'),
      column('Volume', 'VolumeName is the binding reference to the PersistentVolume backing this claim.'),
      column('Capacity', 'Capacity represents the actual resources of the underlying volume.'),
      column('Access Modes', 'AccessModes contains the desired access modes the volume should have.'),
      column('StorageClass', 'StorageClassName is the name of the StorageClass required by the claim.'),
      column('VolumeAttributesClass', 'VolumeAttributesClass the volume attributes class of the claim.'),
      AGE,
      column('VolumeMode', 'VolumeMode defines what type of volume is required by the claim.', 1),
    ],
    cells: (o: Loose) => [
      o.metadata.name,
      o.status?.phase ?? '',
      o.spec?.volumeName ?? '',
      o.status?.capacity?.storage ?? '',
      modes(o.status?.accessModes),
      o.spec?.storageClassName ?? '',
      '<unset>',
      since(o.metadata.creationTimestamp),
      o.spec?.volumeMode ?? '',
    ],
  },
  PersistentVolume: {
    columns: [
      NAME,
      column('Capacity', "capacity is the description of the persistent volume's resources and capacity."),
      column('Access Modes', 'accessModes contains all ways the volume can be mounted.'),
      column('Reclaim Policy', 'persistentVolumeReclaimPolicy defines what happens to a persistent volume when released from its claim.'),
      column('Status', 'phase indicates if a volume is available, bound to a claim, or released by a claim.'),
      column('Claim', 'claimRef is part of a bi-directional binding between PersistentVolume and PersistentVolumeClaim.'),
      column('StorageClass', 'storageClassName is the name of StorageClass to which this persistent volume belongs.'),
      column('VolumeAttributesClass', 'Name of VolumeAttributesClass to which this persistent volume belongs.'),
      column('Reason', 'reason is a brief CamelCase string that describes any failure.'),
      AGE,
      column(
        'VolumeMode',
        'volumeMode defines if a volume is intended to be used with a formatted filesystem or to remain in raw block state.',
        1,
      ),
    ],
    cells: (o: Loose) => [
      o.metadata.name,
      o.spec?.capacity?.storage ?? '',
      modes(o.spec?.accessModes),
      o.spec?.persistentVolumeReclaimPolicy ?? '',
      o.status?.phase ?? '',
      o.spec?.claimRef ? `${o.spec.claimRef.namespace}/${o.spec.claimRef.name}` : '',
      o.spec?.storageClassName ?? '',
      '<unset>',
      o.status?.reason ?? '',
      since(o.metadata.creationTimestamp),
      o.spec?.volumeMode ?? '',
    ],
  },
  StorageClass: {
    columns: [
      NAME,
      column('Provisioner', 'provisioner indicates the type of the provisioner.'),
      column(
        'ReclaimPolicy',
        'reclaimPolicy controls the reclaimPolicy for dynamically provisioned PersistentVolumes of this storage class.',
      ),
      column('VolumeBindingMode', 'volumeBindingMode indicates how PersistentVolumeClaims should be provisioned and bound.'),
      column('AllowVolumeExpansion', 'allowVolumeExpansion shows whether the storage class allow volume expand.'),
      AGE,
    ],
    cells: (o: Loose) => [
      o.metadata.annotations?.['storageclass.kubernetes.io/is-default-class'] === 'true' ? `${o.metadata.name} (default)` : o.metadata.name,
      o.provisioner,
      o.reclaimPolicy ?? 'Delete',
      o.volumeBindingMode ?? 'Immediate',
      String(Boolean(o.allowVolumeExpansion)),
      since(o.metadata.creationTimestamp),
    ],
  },
  // printers.go's roleBindingsColumnDefinitions / clusterRoleBindingsColumnDefinitions (Roles and
  // ClusterRoles print Name and Created At, the default below)
  RoleBinding: bindingPrinter('roleBinding'),
  ClusterRoleBinding: bindingPrinter('clusterRoleBinding'),
} satisfies Record<string, Printer>);

function bindingPrinter(noun: string): Printer {
  const subjects = (o: Loose, kind: string) =>
    ((o.subjects ?? []) as Loose[])
      .filter((subject) => subject.kind === kind)
      // rbac.SubjectsStrings: a service account as namespace:name when the subject names one
      .map((subject) => (kind === 'ServiceAccount' && subject.namespace ? `${subject.namespace}:${subject.name}` : subject.name))
      .join(', ');
  return {
    columns: [
      NAME,
      column('Role', 'RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace.'),
      AGE,
      column('Users', `Users in the ${noun}`, 1),
      column('Groups', `Groups in the ${noun}`, 1),
      column('ServiceAccounts', `ServiceAccounts in the ${noun}`, 1),
    ],
    cells: (o: Loose) => [
      o.metadata.name,
      `${o.roleRef?.kind ?? ''}/${o.roleRef?.name ?? ''}`,
      since(o.metadata.creationTimestamp),
      subjects(o, 'User'),
      subjects(o, 'Group'),
      subjects(o, 'ServiceAccount'),
    ],
  };
}

const DEFAULT_PRINTER: Printer = {
  columns: [
    NAME,
    {
      name: 'Created At',
      type: 'date',
      description: 'CreationTimestamp is a timestamp representing the server time when this object was created.',
    },
  ],
  cells: (object) => [object.metadata.name, object.metadata.creationTimestamp ?? ''],
};

export type IncludeObject = 'None' | 'Metadata' | 'Object';

function rowObject(object: KObject, include: IncludeObject): Json {
  if (include === 'None') return null;
  if (include === 'Object') return asJson(object);
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: object.metadata as unknown as JsonObject };
}

export function toTable(
  def: ResourceDef,
  objects: readonly KObject[],
  listMeta: JsonObject,
  include: IncludeObject = 'Metadata',
): JsonObject {
  const printer = PRINTERS[def.kind] ?? DEFAULT_PRINTER;
  const rows = objects.map((object) => {
    const row: JsonObject = { cells: printer.cells(object) };
    const embedded = rowObject(object, include);
    if (embedded !== null) row.object = embedded;
    return row;
  });
  const columnDefinitions = printer.columns.map((c) => ({ ...c, priority: c.priority ?? 0, format: c.format ?? '' })) as unknown as Json;
  return { kind: 'Table', apiVersion: 'meta.k8s.io/v1', metadata: listMeta, columnDefinitions, rows };
}
