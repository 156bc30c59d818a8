// The admission plugins a default cluster runs on writes: NamespaceLifecycle, ServiceAccount
// (the kube-api-access volume), DefaultTolerationSeconds, Priority, and the service IP and node
// port allocators. They run after defaulting and before validation, as in the API server.
import { fieldError } from '../model/field-errors.js';
import { generateName } from '../model/names.js';
import { milliValue } from '../model/quantity.js';
import type { ResourceDef } from '../model/resources.js';
import type { KObject, Store } from '../store/store.js';
import { errors } from './status.js';
import type { Loose } from '../model/loose.js';

export const SERVICE_CIDR = '10.96.0.0/12';
const SERVICE_NET_BASE = (10 << 24) | (96 << 16);
const SERVICE_NET_SIZE = 1 << 20;
export const KUBERNETES_SERVICE_IP = '10.96.0.1';
const NODE_PORTS = { from: 30000, to: 32767 };
const TOKEN_MOUNT = '/var/run/secrets/kubernetes.io/serviceaccount';

const ipToInt = (ip: string): number => ip.split('.').reduce((n, octet) => n * 256 + Number(octet), 0);
const intToIp = (n: number): string => [24, 16, 8, 0].map((shift) => (n >>> shift) & 255).join('.');

function qosClass(pod: KObject): string {
  const containers = [...((pod.spec as Loose).containers ?? []), ...((pod.spec as Loose).initContainers ?? [])] as Loose[];
  let any = false;
  let guaranteed = true;
  for (const container of containers) {
    const requests = (container.resources?.requests ?? {}) as Record<string, string>;
    const limits = (container.resources?.limits ?? {}) as Record<string, string>;
    for (const name of ['cpu', 'memory']) {
      if (requests[name] !== undefined || limits[name] !== undefined) any = true;
      if (limits[name] === undefined || (requests[name] !== undefined && milliValue(requests[name]) !== milliValue(limits[name])))
        guaranteed = false;
    }
  }
  if (!any) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

export class Admission {
  constructor(private readonly store: Store) {}

  /** NamespaceLifecycle: content goes only into namespaces that exist and are not being deleted. */
  checkNamespace(def: ResourceDef, object: KObject, verb: 'create' | 'update'): void {
    if (!def.namespaced || verb !== 'create') return;
    const namespace = object.metadata.namespace!;
    const found = this.store.peek('namespaces', namespace);
    if (!found) throw errors.notFound({ group: '', resource: 'namespaces' }, namespace);
    if ((found.status as Loose | undefined)?.phase === 'Terminating' && def.resource !== 'events') {
      throw errors.forbidden(
        { group: def.group, resource: def.resource },
        object.metadata.name,
        `unable to create new content in namespace ${namespace} because it is being terminated`,
      );
    }
  }

  /** Mutations on create; throws what the plugins refuse. */
  admitCreate(def: ResourceDef, object: KObject): void {
    if (def.kind === 'Pod') this.admitPod(object);
    if (def.kind === 'Service') this.allocateService(object, undefined);
    if (def.kind === 'PersistentVolumeClaim') this.admitClaim(object);
    if (def.kind === 'PersistentVolume') {
      // StorageObjectInUseProtection
      object.metadata.finalizers = [...new Set([...(object.metadata.finalizers ?? []), 'kubernetes.io/pv-protection'])];
      object.status = { phase: 'Pending' };
    }
  }

  /** DefaultStorageClass and StorageObjectInUseProtection. */
  private admitClaim(claim: KObject): void {
    const spec = claim.spec as Loose;
    if (spec.storageClassName === undefined) {
      const defaultClass = this.store
        .values('storageclasses.storage.k8s.io')
        .find((c) => c.metadata.annotations?.['storageclass.kubernetes.io/is-default-class'] === 'true');
      if (defaultClass) spec.storageClassName = defaultClass.metadata.name;
    }
    claim.metadata.finalizers = [...new Set([...(claim.metadata.finalizers ?? []), 'kubernetes.io/pvc-protection'])];
    claim.status = { phase: 'Pending' };
  }

  admitUpdate(def: ResourceDef, object: KObject, old: KObject): void {
    if (def.kind === 'Service') this.allocateService(object, old);
  }

  private admitPod(pod: KObject): void {
    const spec = pod.spec as Loose;
    const namespace = pod.metadata.namespace!;
    spec.serviceAccountName ||= 'default';
    spec.serviceAccount = spec.serviceAccountName;
    const account = this.store.peek('serviceaccounts', `${namespace}/${spec.serviceAccountName}`);
    if (!account) {
      throw errors.forbidden(
        { group: '', resource: 'pods' },
        pod.metadata.name,
        `error looking up service account ${namespace}/${spec.serviceAccountName}: serviceaccount "${spec.serviceAccountName}" not found`,
      );
    }
    const automount = spec.automountServiceAccountToken ?? (account.automountServiceAccountToken as boolean | undefined) ?? true;
    if (automount) this.mountToken(spec);
    const tolerations = (spec.tolerations ??= []) as Loose[];
    for (const key of ['node.kubernetes.io/not-ready', 'node.kubernetes.io/unreachable']) {
      if (!tolerations.some((t) => (t.key === key || (!t.key && t.operator === 'Exists')) && (!t.effect || t.effect === 'NoExecute'))) {
        tolerations.push({ key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 });
      }
    }
    if (!spec.priorityClassName) spec.priority ??= 0;
    spec.preemptionPolicy ??= 'PreemptLowerPriority';
    pod.status = { phase: 'Pending', qosClass: qosClass(pod) };
  }

  private mountToken(spec: Loose): void {
    const containers = [...(spec.containers ?? []), ...(spec.initContainers ?? [])] as Loose[];
    if (containers.every((c) => ((c.volumeMounts ?? []) as Loose[]).some((m) => m.mountPath === TOKEN_MOUNT))) return;
    const name = generateName('kube-api-access-');
    const volumes = (spec.volumes ??= []) as Loose[];
    volumes.push({
      name,
      projected: {
        sources: [
          { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
          { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
          { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
        ],
        defaultMode: 420,
      },
    });
    for (const container of containers) {
      const mounts = (container.volumeMounts ??= []) as Loose[];
      if (!mounts.some((m) => m.mountPath === TOKEN_MOUNT)) mounts.push({ name, readOnly: true, mountPath: TOKEN_MOUNT });
    }
  }

  private usedServiceIPs(): Set<string> {
    return new Set(this.store.values('services').map((service) => (service.spec as Loose).clusterIP as string));
  }

  private allocateService(service: KObject, old: KObject | undefined): void {
    const spec = service.spec as Loose;
    const oldSpec = old?.spec as Loose | undefined;
    if (spec.type === 'ExternalName') {
      delete spec.clusterIP;
      delete spec.clusterIPs;
      return;
    }
    if (oldSpec?.clusterIP && !spec.clusterIP) spec.clusterIP = oldSpec.clusterIP;
    if (!spec.clusterIP) {
      const used = this.usedServiceIPs();
      for (let offset = 10; offset < SERVICE_NET_SIZE - 1; offset++) {
        const ip = intToIp(SERVICE_NET_BASE + offset);
        if (!used.has(ip)) {
          spec.clusterIP = ip;
          break;
        }
      }
    } else if (spec.clusterIP !== 'None' && spec.clusterIP !== oldSpec?.clusterIP) {
      const n = ipToInt(spec.clusterIP);
      const inRange = /^\d+\.\d+\.\d+\.\d+$/.test(spec.clusterIP) && n > SERVICE_NET_BASE && n < SERVICE_NET_BASE + SERVICE_NET_SIZE - 1;
      const detail = !inRange
        ? `failed to allocate IP ${spec.clusterIP}: the provided IP (${spec.clusterIP}) is not in the valid range. The range of valid IPs is ${SERVICE_CIDR}`
        : this.usedServiceIPs().has(spec.clusterIP)
          ? `failed to allocate IP ${spec.clusterIP}: provided IP is already allocated`
          : undefined;
      if (detail)
        throw errors.invalid('', 'Service', service.metadata.name, [fieldError.invalid('spec.clusterIPs', [spec.clusterIP], detail)]);
    }
    spec.clusterIPs = [spec.clusterIP];
    if (spec.clusterIP !== 'None' || spec.selector) {
      spec.ipFamilies ??= ['IPv4'];
      spec.ipFamilyPolicy ??= 'SingleStack';
    }
    if (spec.type === 'NodePort' || spec.type === 'LoadBalancer') this.allocateNodePorts(spec, oldSpec);
  }

  private allocateNodePorts(spec: Loose, oldSpec: Loose | undefined): void {
    const used = new Set<number>();
    for (const service of this.store.values('services'))
      for (const port of ((service.spec as Loose).ports ?? []) as Loose[]) if (port.nodePort) used.add(port.nodePort);
    for (const port of (spec.ports ?? []) as Loose[]) {
      const before = ((oldSpec?.ports ?? []) as Loose[]).find((p) => p.port === port.port && p.protocol === port.protocol);
      if (port.nodePort) continue;
      if (before?.nodePort) {
        port.nodePort = before.nodePort;
        continue;
      }
      for (let candidate = NODE_PORTS.from; candidate <= NODE_PORTS.to; candidate++) {
        if (!used.has(candidate)) {
          port.nodePort = candidate;
          used.add(candidate);
          break;
        }
      }
    }
  }
}
