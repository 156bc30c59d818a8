// Defaulting, as the API server applies it to every decoded object (core/v1 defaults.go):
// fields a client leaves out come back filled in, so clients see what a real cluster returns.
import type { KObject } from '../store/store.js';
import type { Loose } from './loose.js';
import { defaultNetworkPolicy } from './validate-policies.js';
import { defaultBinding } from './validate-rbac.js';

const setDefault = <T>(object: Loose, key: string, value: T): void => {
  if (object[key] === undefined) object[key] = value;
};

function imagePullPolicy(image: string | undefined): string {
  if (!image) return 'IfNotPresent';
  const withoutDigest = image.split('@')[0]!;
  if (image.includes('@')) return 'IfNotPresent';
  const lastSegment = withoutDigest.split('/').pop()!;
  const tag = lastSegment.includes(':') ? lastSegment.split(':').pop() : undefined;
  return !tag || tag === 'latest' ? 'Always' : 'IfNotPresent';
}

function defaultProbe(probe: Loose | undefined): void {
  if (!probe) return;
  setDefault(probe, 'timeoutSeconds', 1);
  setDefault(probe, 'periodSeconds', 10);
  setDefault(probe, 'successThreshold', 1);
  setDefault(probe, 'failureThreshold', 3);
  if (probe.httpGet) {
    setDefault(probe.httpGet, 'path', '/');
    setDefault(probe.httpGet, 'scheme', 'HTTP');
  }
}

function defaultContainer(container: Loose, hostNetwork: boolean): void {
  setDefault(container, 'terminationMessagePath', '/dev/termination-log');
  setDefault(container, 'terminationMessagePolicy', 'File');
  setDefault(container, 'imagePullPolicy', imagePullPolicy(container.image));
  setDefault(container, 'resources', {});
  const resources = container.resources as Loose;
  // limits without requests: requests default to the limits
  if (resources.limits) {
    resources.requests ??= {};
    for (const [name, value] of Object.entries(resources.limits)) setDefault(resources.requests, name, value);
  }
  for (const port of (container.ports ?? []) as Loose[]) {
    setDefault(port, 'protocol', 'TCP');
    if (hostNetwork) setDefault(port, 'hostPort', port.containerPort);
  }
  for (const env of (container.env ?? []) as Loose[]) {
    if (env.valueFrom?.fieldRef) setDefault(env.valueFrom.fieldRef, 'apiVersion', 'v1');
  }
  defaultProbe(container.livenessProbe);
  defaultProbe(container.readinessProbe);
  defaultProbe(container.startupProbe);
}

function defaultVolume(volume: Loose): void {
  const sources = Object.keys(volume).filter((key) => key !== 'name');
  if (sources.length === 0) volume.emptyDir = {};
  if (volume.hostPath) setDefault(volume.hostPath, 'type', '');
  for (const source of ['secret', 'configMap', 'downwardAPI', 'projected']) {
    if (volume[source]) setDefault(volume[source], 'defaultMode', 420);
  }
  for (const item of (volume.downwardAPI?.items ?? []) as Loose[]) if (item.fieldRef) setDefault(item.fieldRef, 'apiVersion', 'v1');
}

export function defaultPod(pod: KObject): void {
  const spec = (pod.spec ??= {}) as Loose;
  setDefault(spec, 'restartPolicy', 'Always');
  setDefault(spec, 'terminationGracePeriodSeconds', 30);
  setDefault(spec, 'dnsPolicy', 'ClusterFirst');
  setDefault(spec, 'securityContext', {});
  setDefault(spec, 'schedulerName', 'default-scheduler');
  setDefault(spec, 'enableServiceLinks', true);
  const hostNetwork = Boolean(spec.hostNetwork);
  for (const container of [...(spec.containers ?? []), ...(spec.initContainers ?? [])] as Loose[]) defaultContainer(container, hostNetwork);
  for (const volume of (spec.volumes ?? []) as Loose[]) defaultVolume(volume);
  if (spec.serviceAccountName && !spec.serviceAccount) spec.serviceAccount = spec.serviceAccountName;
}

export function defaultService(service: KObject): void {
  const spec = (service.spec ??= {}) as Loose;
  setDefault(spec, 'type', 'ClusterIP');
  setDefault(spec, 'sessionAffinity', 'None');
  for (const port of (spec.ports ?? []) as Loose[]) {
    setDefault(port, 'protocol', 'TCP');
    // an unset, zero or empty targetPort is the port itself (SetDefaults_Service)
    if (port.targetPort === undefined || port.targetPort === 0 || port.targetPort === '') port.targetPort = port.port;
  }
  if (spec.type !== 'ExternalName') setDefault(spec, 'internalTrafficPolicy', 'Cluster');
  if (spec.type === 'NodePort' || spec.type === 'LoadBalancer') setDefault(spec, 'externalTrafficPolicy', 'Cluster');
  service.status ??= { loadBalancer: {} };
}

export function defaultNamespace(namespace: KObject): void {
  namespace.metadata.labels = { ...namespace.metadata.labels, 'kubernetes.io/metadata.name': namespace.metadata.name };
  const spec = (namespace.spec ??= {}) as Loose;
  setDefault(spec, 'finalizers', ['kubernetes']);
}

export function defaultSecret(secret: KObject): void {
  setDefault(secret as Loose, 'type', 'Opaque');
  const stringData = secret.stringData as Record<string, string> | undefined;
  if (stringData) {
    const data = ((secret as Loose).data ??= {}) as Record<string, string>;
    for (const [key, value] of Object.entries(stringData)) data[key] = Buffer.from(value).toString('base64');
    delete secret.stringData;
  }
}

function defaultEndpointPorts(ports: Loose[] | undefined): void {
  for (const port of ports ?? []) setDefault(port, 'protocol', 'TCP');
}

export function defaultEndpoints(endpoints: KObject): void {
  for (const subset of (endpoints.subsets ?? []) as Loose[]) defaultEndpointPorts(subset.ports);
}

export function defaultEndpointSlice(slice: KObject): void {
  defaultEndpointPorts(slice.ports as Loose[] | undefined);
}

function defaultClaim(claim: KObject): void {
  const spec = (claim.spec ??= {}) as Loose;
  setDefault(spec, 'volumeMode', 'Filesystem');
}

function defaultPersistentVolume(volume: KObject): void {
  const spec = (volume.spec ??= {}) as Loose;
  setDefault(spec, 'persistentVolumeReclaimPolicy', 'Retain');
  setDefault(spec, 'volumeMode', 'Filesystem');
  if (spec.hostPath) setDefault(spec.hostPath, 'type', '');
}

function defaultStorageClass(storageClass: KObject): void {
  setDefault(storageClass as Loose, 'reclaimPolicy', 'Delete');
  setDefault(storageClass as Loose, 'volumeBindingMode', 'Immediate');
}

export const DEFAULTERS: Record<string, (object: KObject) => void> = {
  PersistentVolumeClaim: defaultClaim,
  PersistentVolume: defaultPersistentVolume,
  StorageClass: defaultStorageClass,
  Pod: defaultPod,
  Service: defaultService,
  Namespace: defaultNamespace,
  Secret: defaultSecret,
  Endpoints: defaultEndpoints,
  EndpointSlice: defaultEndpointSlice,
  RoleBinding: defaultBinding,
  ClusterRoleBinding: defaultBinding,
  NetworkPolicy: defaultNetworkPolicy,
};
