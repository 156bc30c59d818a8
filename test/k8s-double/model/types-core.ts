// core/v1 shapes (k8s.io/api core/v1 types.go, v1.32): field names, JSON types and the patch
// strategies of their lists. Volume sources and scheduling terms this double does not act on
// are kept open (stored as sent) rather than described field by field.
import { define, t, type Schema } from './schema.js';
import { ListMeta, ObjectMeta } from './types-meta.js';

const CORE = 'io.k8s.api.core.v1';
const core = (name: string, properties: Record<string, Schema>, options: Parameters<typeof define>[2] = {}) =>
  define(`${CORE}.${name}`, properties, options);
const gvk = (kind: string) => ({ gvk: [{ group: '', version: 'v1', kind }] });

export const ObjectReference = core('ObjectReference', {
  kind: t.string,
  namespace: t.string,
  name: t.string,
  uid: t.string,
  apiVersion: t.string,
  resourceVersion: t.string,
  fieldPath: t.string,
});
export const LocalObjectReference = core('LocalObjectReference', { name: t.string });
const KeyToPath = core('KeyToPath', { key: t.string, path: t.string, mode: t.int32 }, { required: ['key', 'path'] });
const ObjectFieldSelector = core('ObjectFieldSelector', { apiVersion: t.string, fieldPath: t.string }, { required: ['fieldPath'] });
const ResourceFieldSelector = core(
  'ResourceFieldSelector',
  { containerName: t.string, resource: t.string, divisor: t.quantity },
  { required: ['resource'] },
);
const KeySelector = (name: string) => core(name, { name: t.string, key: t.string, optional: t.boolean }, { required: ['key'] });
const EnvVarSource = core('EnvVarSource', {
  fieldRef: ObjectFieldSelector,
  resourceFieldRef: ResourceFieldSelector,
  configMapKeyRef: KeySelector('ConfigMapKeySelector'),
  secretKeyRef: KeySelector('SecretKeySelector'),
});
const EnvVar = core('EnvVar', { name: t.string, value: t.string, valueFrom: EnvVarSource }, { required: ['name'] });
const NamedSource = (name: string) => core(name, { name: t.string, optional: t.boolean });
const EnvFromSource = core('EnvFromSource', {
  prefix: t.string,
  configMapRef: NamedSource('ConfigMapEnvSource'),
  secretRef: NamedSource('SecretEnvSource'),
});
const ContainerPort = core(
  'ContainerPort',
  { name: t.string, hostPort: t.int32, containerPort: t.int32, protocol: t.enum('SCTP', 'TCP', 'UDP'), hostIP: t.string },
  { required: ['containerPort'] },
);
const VolumeMount = core(
  'VolumeMount',
  {
    name: t.string,
    readOnly: t.boolean,
    recursiveReadOnly: t.string,
    mountPath: t.string,
    subPath: t.string,
    mountPropagation: t.string,
    subPathExpr: t.string,
  },
  { required: ['name', 'mountPath'] },
);
const ResourceRequirements = core('ResourceRequirements', {
  limits: t.quantityMap,
  requests: t.quantityMap,
  claims: t.list(t.any),
});
const Capabilities = core('Capabilities', { add: t.list(t.string), drop: t.list(t.string) });
const SecurityContext = core('SecurityContext', {
  capabilities: Capabilities,
  privileged: t.boolean,
  seLinuxOptions: t.any,
  windowsOptions: t.any,
  runAsUser: t.int64,
  runAsGroup: t.int64,
  runAsNonRoot: t.boolean,
  readOnlyRootFilesystem: t.boolean,
  allowPrivilegeEscalation: t.boolean,
  procMount: t.string,
  seccompProfile: t.any,
  appArmorProfile: t.any,
});
const ExecAction = core('ExecAction', { command: t.list(t.string) });
const HTTPHeader = core('HTTPHeader', { name: t.string, value: t.string }, { required: ['name', 'value'] });
const HTTPGetAction = core(
  'HTTPGetAction',
  { path: t.string, port: t.intOrString, host: t.string, scheme: t.enum('HTTP', 'HTTPS'), httpHeaders: t.list(HTTPHeader) },
  { required: ['port'] },
);
const TCPSocketAction = core('TCPSocketAction', { port: t.intOrString, host: t.string }, { required: ['port'] });
const GRPCAction = core('GRPCAction', { port: t.int32, service: t.string }, { required: ['port'] });
const Probe = core('Probe', {
  exec: ExecAction,
  httpGet: HTTPGetAction,
  tcpSocket: TCPSocketAction,
  grpc: GRPCAction,
  initialDelaySeconds: t.int32,
  timeoutSeconds: t.int32,
  periodSeconds: t.int32,
  successThreshold: t.int32,
  failureThreshold: t.int32,
  terminationGracePeriodSeconds: t.int64,
});
const LifecycleHandler = core('LifecycleHandler', {
  exec: ExecAction,
  httpGet: HTTPGetAction,
  tcpSocket: TCPSocketAction,
  sleep: core('SleepAction', { seconds: t.int64 }, { required: ['seconds'] }),
});
const Lifecycle = core('Lifecycle', { postStart: LifecycleHandler, preStop: LifecycleHandler, stopSignal: t.string });

const containerFields: Record<string, Schema> = {
  name: t.string,
  image: t.string,
  command: t.list(t.string, { listType: 'atomic' }),
  args: t.list(t.string, { listType: 'atomic' }),
  workingDir: t.string,
  ports: t.mergeList(ContainerPort, 'containerPort', { listMapKeys: ['containerPort', 'protocol'] }),
  envFrom: t.list(EnvFromSource, { listType: 'atomic' }),
  env: t.mergeList(EnvVar, 'name'),
  resources: ResourceRequirements,
  resizePolicy: t.list(t.any, { listType: 'atomic' }),
  restartPolicy: t.string,
  volumeMounts: t.mergeList(VolumeMount, 'mountPath'),
  volumeDevices: t.mergeList(t.any, 'devicePath'),
  livenessProbe: Probe,
  readinessProbe: Probe,
  startupProbe: Probe,
  lifecycle: Lifecycle,
  terminationMessagePath: t.string,
  terminationMessagePolicy: t.enum('FallbackToLogsOnError', 'File'),
  imagePullPolicy: t.enum('Always', 'IfNotPresent', 'Never'),
  securityContext: SecurityContext,
  stdin: t.boolean,
  stdinOnce: t.boolean,
  tty: t.boolean,
};
export const Container = core('Container', containerFields, { required: ['name'] });
const EphemeralContainer = core('EphemeralContainer', { ...containerFields, targetContainerName: t.string }, { required: ['name'] });

const HostPathVolumeSource = core(
  'HostPathVolumeSource',
  { path: t.string, type: t.enum('', 'BlockDevice', 'CharDevice', 'Directory', 'DirectoryOrCreate', 'File', 'FileOrCreate', 'Socket') },
  { required: ['path'] },
);
const EmptyDirVolumeSource = core('EmptyDirVolumeSource', { medium: t.string, sizeLimit: t.quantity });
const SecretVolumeSource = core('SecretVolumeSource', {
  secretName: t.string,
  items: t.list(KeyToPath),
  defaultMode: t.int32,
  optional: t.boolean,
});
const ConfigMapVolumeSource = core('ConfigMapVolumeSource', {
  name: t.string,
  items: t.list(KeyToPath),
  defaultMode: t.int32,
  optional: t.boolean,
});
const DownwardAPIVolumeFile = core(
  'DownwardAPIVolumeFile',
  { path: t.string, fieldRef: ObjectFieldSelector, resourceFieldRef: ResourceFieldSelector, mode: t.int32 },
  { required: ['path'] },
);
const DownwardAPIVolumeSource = core('DownwardAPIVolumeSource', { items: t.list(DownwardAPIVolumeFile), defaultMode: t.int32 });
const VolumeProjection = core('VolumeProjection', {
  secret: core('SecretProjection', { name: t.string, items: t.list(KeyToPath), optional: t.boolean }),
  downwardAPI: core('DownwardAPIProjection', { items: t.list(DownwardAPIVolumeFile) }),
  configMap: core('ConfigMapProjection', { name: t.string, items: t.list(KeyToPath), optional: t.boolean }),
  serviceAccountToken: core(
    'ServiceAccountTokenProjection',
    { audience: t.string, expirationSeconds: t.int64, path: t.string },
    { required: ['path'] },
  ),
  clusterTrustBundle: t.any,
});
const ProjectedVolumeSource = core('ProjectedVolumeSource', { sources: t.list(VolumeProjection), defaultMode: t.int32 });
const PersistentVolumeClaimVolumeSource = core(
  'PersistentVolumeClaimVolumeSource',
  { claimName: t.string, readOnly: t.boolean },
  { required: ['claimName'] },
);

/** The volume sources a Volume may name, one per volume (VolumeSource is inlined in Volume). */
export const VOLUME_SOURCES = [
  'hostPath',
  'emptyDir',
  'gcePersistentDisk',
  'awsElasticBlockStore',
  'gitRepo',
  'secret',
  'nfs',
  'iscsi',
  'glusterfs',
  'persistentVolumeClaim',
  'rbd',
  'flexVolume',
  'cinder',
  'cephfs',
  'flocker',
  'downwardAPI',
  'fc',
  'azureFile',
  'configMap',
  'vsphereVolume',
  'quobyte',
  'azureDisk',
  'photonPersistentDisk',
  'projected',
  'portworxVolume',
  'scaleIO',
  'storageos',
  'csi',
  'ephemeral',
  'image',
] as const;
const modelledSources: Record<string, Schema> = {
  hostPath: HostPathVolumeSource,
  emptyDir: EmptyDirVolumeSource,
  secret: SecretVolumeSource,
  configMap: ConfigMapVolumeSource,
  downwardAPI: DownwardAPIVolumeSource,
  projected: ProjectedVolumeSource,
  persistentVolumeClaim: PersistentVolumeClaimVolumeSource,
};
const Volume = core(
  'Volume',
  { name: t.string, ...Object.fromEntries(VOLUME_SOURCES.map((source) => [source, modelledSources[source] ?? t.any])) },
  { required: ['name'] },
);

const Toleration = core('Toleration', {
  key: t.string,
  operator: t.enum('Equal', 'Exists'),
  value: t.string,
  effect: t.enum('NoExecute', 'NoSchedule', 'PreferNoSchedule'),
  tolerationSeconds: t.int64,
});
const PodSecurityContext = core('PodSecurityContext', {
  seLinuxOptions: t.any,
  windowsOptions: t.any,
  runAsUser: t.int64,
  runAsGroup: t.int64,
  runAsNonRoot: t.boolean,
  supplementalGroups: t.list(t.int64, { listType: 'atomic' }),
  supplementalGroupsPolicy: t.string,
  fsGroup: t.int64,
  sysctls: t.list(t.any, { listType: 'atomic' }),
  fsGroupChangePolicy: t.string,
  seccompProfile: t.any,
  appArmorProfile: t.any,
  seLinuxChangePolicy: t.string,
});
const PodDNSConfig = core('PodDNSConfig', {
  nameservers: t.list(t.string),
  searches: t.list(t.string),
  options: t.list(core('PodDNSConfigOption', { name: t.string, value: t.string })),
});
const HostAlias = core('HostAlias', { ip: t.string, hostnames: t.list(t.string) }, { required: ['ip'] });

export const PodSpec = core(
  'PodSpec',
  {
    volumes: t.mergeList(Volume, 'name', { retainKeys: true }),
    initContainers: t.mergeList(Container, 'name'),
    containers: t.mergeList(Container, 'name'),
    ephemeralContainers: t.mergeList(EphemeralContainer, 'name'),
    restartPolicy: t.enum('Always', 'Never', 'OnFailure'),
    terminationGracePeriodSeconds: t.int64,
    activeDeadlineSeconds: t.int64,
    dnsPolicy: t.enum('ClusterFirst', 'ClusterFirstWithHostNet', 'Default', 'None'),
    nodeSelector: t.stringMap,
    serviceAccountName: t.string,
    serviceAccount: t.string,
    automountServiceAccountToken: t.boolean,
    nodeName: t.string,
    hostNetwork: t.boolean,
    hostPID: t.boolean,
    hostIPC: t.boolean,
    shareProcessNamespace: t.boolean,
    securityContext: PodSecurityContext,
    imagePullSecrets: t.mergeList(LocalObjectReference, 'name'),
    hostname: t.string,
    subdomain: t.string,
    affinity: t.any,
    schedulerName: t.string,
    tolerations: t.list(Toleration, { listType: 'atomic' }),
    hostAliases: t.mergeList(HostAlias, 'ip'),
    priorityClassName: t.string,
    priority: t.int32,
    dnsConfig: PodDNSConfig,
    readinessGates: t.list(core('PodReadinessGate', { conditionType: t.string }, { required: ['conditionType'] })),
    runtimeClassName: t.string,
    enableServiceLinks: t.boolean,
    preemptionPolicy: t.string,
    overhead: t.quantityMap,
    topologySpreadConstraints: t.mergeList(t.any, 'topologyKey', { listMapKeys: ['topologyKey', 'whenUnsatisfiable'] }),
    setHostnameAsFQDN: t.boolean,
    os: core('PodOS', { name: t.string }, { required: ['name'] }),
    hostUsers: t.boolean,
    schedulingGates: t.mergeList(core('PodSchedulingGate', { name: t.string }, { required: ['name'] }), 'name'),
    resourceClaims: t.mergeList(t.any, 'name', { retainKeys: true }),
    resources: ResourceRequirements,
  },
  { required: ['containers'] },
);

const ContainerState = core('ContainerState', {
  waiting: core('ContainerStateWaiting', { reason: t.string, message: t.string }),
  running: core('ContainerStateRunning', { startedAt: t.time }),
  terminated: core(
    'ContainerStateTerminated',
    {
      exitCode: t.int32,
      signal: t.int32,
      reason: t.string,
      message: t.string,
      startedAt: t.time,
      finishedAt: t.time,
      containerID: t.string,
    },
    { required: ['exitCode'] },
  ),
});
const ContainerStatus = core(
  'ContainerStatus',
  {
    name: t.string,
    state: ContainerState,
    lastState: ContainerState,
    ready: t.boolean,
    restartCount: t.int32,
    image: t.string,
    imageID: t.string,
    containerID: t.string,
    started: t.boolean,
    allocatedResources: t.quantityMap,
    resources: ResourceRequirements,
    volumeMounts: t.mergeList(t.any, 'mountPath'),
    user: t.any,
    allocatedResourcesStatus: t.mergeList(t.any, 'name'),
  },
  { required: ['name', 'ready', 'restartCount', 'image', 'imageID'] },
);
const PodCondition = core(
  'PodCondition',
  {
    type: t.string,
    observedGeneration: t.int64,
    status: t.string,
    lastProbeTime: t.time,
    lastTransitionTime: t.time,
    reason: t.string,
    message: t.string,
  },
  { required: ['type', 'status'] },
);
const IPEntry = (name: string) => core(name, { ip: t.string }, { required: ['ip'] });
const PodStatus = core('PodStatus', {
  phase: t.enum('Failed', 'Pending', 'Running', 'Succeeded', 'Unknown'),
  conditions: t.mergeList(PodCondition, 'type'),
  message: t.string,
  reason: t.string,
  nominatedNodeName: t.string,
  hostIP: t.string,
  hostIPs: t.mergeList(IPEntry('HostIP'), 'ip'),
  podIP: t.string,
  podIPs: t.mergeList(IPEntry('PodIP'), 'ip'),
  startTime: t.time,
  initContainerStatuses: t.list(ContainerStatus, { listType: 'atomic' }),
  containerStatuses: t.list(ContainerStatus, { listType: 'atomic' }),
  qosClass: t.enum('BestEffort', 'Burstable', 'Guaranteed'),
  ephemeralContainerStatuses: t.list(ContainerStatus, { listType: 'atomic' }),
  resize: t.string,
  resourceClaimStatuses: t.mergeList(t.any, 'name', { retainKeys: true }),
});
export const Pod = core(
  'Pod',
  { apiVersion: t.string, kind: t.string, metadata: ObjectMeta, spec: PodSpec, status: PodStatus },
  gvk('Pod'),
);
core('PodList', { apiVersion: t.string, kind: t.string, metadata: ListMeta, items: t.list(Pod) }, gvk('PodList'));
core(
  'Binding',
  { apiVersion: t.string, kind: t.string, metadata: ObjectMeta, target: ObjectReference },
  { ...gvk('Binding'), required: ['target'] },
);

const Taint = core(
  'Taint',
  { key: t.string, value: t.string, effect: t.enum('NoExecute', 'NoSchedule', 'PreferNoSchedule'), timeAdded: t.time },
  { required: ['key', 'effect'] },
);
const NodeSpec = core('NodeSpec', {
  podCIDR: t.string,
  podCIDRs: t.list(t.string, { patch: { strategy: 'merge' }, listType: 'set' }),
  providerID: t.string,
  unschedulable: t.boolean,
  taints: t.list(Taint, { listType: 'atomic' }),
  configSource: t.any,
  externalID: t.string,
});
const NodeCondition = core(
  'NodeCondition',
  {
    type: t.string,
    status: t.string,
    lastHeartbeatTime: t.time,
    lastTransitionTime: t.time,
    reason: t.string,
    message: t.string,
  },
  { required: ['type', 'status'] },
);
const NodeStatus = core('NodeStatus', {
  capacity: t.quantityMap,
  allocatable: t.quantityMap,
  phase: t.string,
  conditions: t.mergeList(NodeCondition, 'type'),
  addresses: t.mergeList(core('NodeAddress', { type: t.string, address: t.string }, { required: ['type', 'address'] }), 'type'),
  daemonEndpoints: core('NodeDaemonEndpoints', {
    kubeletEndpoint: core('DaemonEndpoint', { Port: t.int32 }, { required: ['Port'] }),
  }),
  nodeInfo: core('NodeSystemInfo', {
    machineID: t.string,
    systemUUID: t.string,
    bootID: t.string,
    kernelVersion: t.string,
    osImage: t.string,
    containerRuntimeVersion: t.string,
    kubeletVersion: t.string,
    kubeProxyVersion: t.string,
    operatingSystem: t.string,
    architecture: t.string,
  }),
  images: t.list(core('ContainerImage', { names: t.list(t.string, { listType: 'atomic' }), sizeBytes: t.int64 }), { listType: 'atomic' }),
  volumesInUse: t.list(t.string),
  volumesAttached: t.list(t.any),
  config: t.any,
  runtimeHandlers: t.list(t.any),
  features: t.any,
});
export const Node = core(
  'Node',
  { apiVersion: t.string, kind: t.string, metadata: ObjectMeta, spec: NodeSpec, status: NodeStatus },
  gvk('Node'),
);
core('NodeList', { apiVersion: t.string, kind: t.string, metadata: ListMeta, items: t.list(Node) }, gvk('NodeList'));

const ServicePort = core(
  'ServicePort',
  {
    name: t.string,
    protocol: t.enum('SCTP', 'TCP', 'UDP'),
    appProtocol: t.string,
    port: t.int32,
    targetPort: t.intOrString,
    nodePort: t.int32,
  },
  { required: ['port'] },
);
const ServiceSpec = core('ServiceSpec', {
  ports: t.mergeList(ServicePort, 'port', { listMapKeys: ['port', 'protocol'] }),
  selector: t.stringMap,
  clusterIP: t.string,
  clusterIPs: t.list(t.string, { listType: 'atomic' }),
  type: t.enum('ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'),
  externalIPs: t.list(t.string, { listType: 'atomic' }),
  sessionAffinity: t.enum('ClientIP', 'None'),
  loadBalancerIP: t.string,
  loadBalancerSourceRanges: t.list(t.string, { listType: 'atomic' }),
  externalName: t.string,
  externalTrafficPolicy: t.enum('Cluster', 'Local'),
  healthCheckNodePort: t.int32,
  publishNotReadyAddresses: t.boolean,
  sessionAffinityConfig: t.any,
  ipFamilies: t.list(t.enum('IPv4', 'IPv6'), { listType: 'atomic' }),
  ipFamilyPolicy: t.enum('PreferDualStack', 'RequireDualStack', 'SingleStack'),
  allocateLoadBalancerNodePorts: t.boolean,
  loadBalancerClass: t.string,
  internalTrafficPolicy: t.enum('Cluster', 'Local'),
  trafficDistribution: t.string,
});
const ServiceStatus = core('ServiceStatus', { loadBalancer: t.any, conditions: t.list(t.any) });
export const Service = core(
  'Service',
  { apiVersion: t.string, kind: t.string, metadata: ObjectMeta, spec: ServiceSpec, status: ServiceStatus },
  gvk('Service'),
);

const EndpointAddress = core(
  'EndpointAddress',
  { ip: t.string, hostname: t.string, nodeName: t.string, targetRef: ObjectReference },
  { required: ['ip'] },
);
const EndpointPort = core(
  'EndpointPort',
  { name: t.string, port: t.int32, protocol: t.enum('SCTP', 'TCP', 'UDP'), appProtocol: t.string },
  { required: ['port'] },
);
const EndpointSubset = core('EndpointSubset', {
  addresses: t.list(EndpointAddress, { listType: 'atomic' }),
  notReadyAddresses: t.list(EndpointAddress, { listType: 'atomic' }),
  ports: t.list(EndpointPort, { listType: 'atomic' }),
});
core(
  'Endpoints',
  { apiVersion: t.string, kind: t.string, metadata: ObjectMeta, subsets: t.list(EndpointSubset, { listType: 'atomic' }) },
  gvk('Endpoints'),
);

core(
  'Namespace',
  {
    apiVersion: t.string,
    kind: t.string,
    metadata: ObjectMeta,
    spec: core('NamespaceSpec', { finalizers: t.list(t.string, { listType: 'atomic' }) }),
    status: core('NamespaceStatus', { phase: t.enum('Active', 'Terminating'), conditions: t.mergeList(t.any, 'type') }),
  },
  gvk('Namespace'),
);

core(
  'Event',
  {
    apiVersion: t.string,
    kind: t.string,
    metadata: ObjectMeta,
    involvedObject: ObjectReference,
    reason: t.string,
    message: t.string,
    source: core('EventSource', { component: t.string, host: t.string }),
    firstTimestamp: t.time,
    lastTimestamp: t.time,
    count: t.int32,
    type: t.string,
    eventTime: t.microTime,
    series: core('EventSeries', { count: t.int32, lastObservedTime: t.microTime }),
    action: t.string,
    related: ObjectReference,
    reportingComponent: t.string,
    reportingInstance: t.string,
  },
  { ...gvk('Event'), required: ['metadata', 'involvedObject'] },
);

core(
  'ConfigMap',
  { apiVersion: t.string, kind: t.string, metadata: ObjectMeta, immutable: t.boolean, data: t.stringMap, binaryData: t.map(t.bytes) },
  gvk('ConfigMap'),
);
core(
  'Secret',
  {
    apiVersion: t.string,
    kind: t.string,
    metadata: ObjectMeta,
    immutable: t.boolean,
    data: t.map(t.bytes),
    stringData: t.stringMap,
    type: t.string,
  },
  gvk('Secret'),
);
core(
  'ServiceAccount',
  {
    apiVersion: t.string,
    kind: t.string,
    metadata: ObjectMeta,
    secrets: t.mergeList(ObjectReference, 'name'),
    imagePullSecrets: t.list(LocalObjectReference, { listType: 'atomic' }),
    automountServiceAccountToken: t.boolean,
  },
  gvk('ServiceAccount'),
);
