// A container's environment as the kubelet builds it (makeEnvironmentVariables): service
// links, envFrom, env with valueFrom (downward API, ConfigMap and Secret keys, resource fields)
// and $(VAR) references expanded.
import { intValue, milliValue, parseQuantity } from '../model/quantity.js';
import type { KObject, Store } from '../store/store.js';
import type { Loose } from '../model/loose.js';

/** Thrown when the container cannot be configured (CreateContainerConfigError). */
export class ContainerConfigError extends Error {}

function serviceEnv(service: KObject): Array<[string, string]> {
  const spec = service.spec as Loose;
  if (!spec.clusterIP || spec.clusterIP === 'None') return [];
  const prefix = service.metadata.name.toUpperCase().replace(/-/g, '_');
  const ports = (spec.ports ?? []) as Loose[];
  if (ports.length === 0) return [];
  const first = ports[0]!;
  const out: Array<[string, string]> = [
    [`${prefix}_SERVICE_HOST`, spec.clusterIP],
    [`${prefix}_SERVICE_PORT`, String(first.port)],
  ];
  for (const port of ports)
    if (port.name) out.push([`${prefix}_SERVICE_PORT_${String(port.name).toUpperCase().replace(/-/g, '_')}`, String(port.port)]);
  out.push([`${prefix}_PORT`, `${String(first.protocol).toLowerCase()}://${spec.clusterIP}:${first.port}`]);
  for (const port of ports) {
    const base = `${prefix}_PORT_${port.port}_${port.protocol}`;
    out.push([base, `${String(port.protocol).toLowerCase()}://${spec.clusterIP}:${port.port}`]);
    out.push([`${base}_PROTO`, String(port.protocol).toLowerCase()]);
    out.push([`${base}_PORT`, String(port.port)]);
    out.push([`${base}_ADDR`, spec.clusterIP]);
  }
  return out;
}

function fieldValue(pod: KObject, fieldPath: string, hostIP: string, podIP: string | undefined): string {
  const meta = pod.metadata;
  const subscript = /^metadata\.(labels|annotations)\['(.+)'\]$/.exec(fieldPath);
  if (subscript) return (meta[subscript[1] as 'labels' | 'annotations'] ?? {})[subscript[2]!] ?? '';
  switch (fieldPath) {
    case 'metadata.name':
      return meta.name;
    case 'metadata.namespace':
      return meta.namespace ?? '';
    case 'metadata.uid':
      return meta.uid ?? '';
    case 'metadata.labels':
      return Object.entries(meta.labels ?? {})
        .map(([k, v]) => `${k}="${v}"`)
        .join('\n');
    case 'metadata.annotations':
      return Object.entries(meta.annotations ?? {})
        .map(([k, v]) => `${k}="${v}"`)
        .join('\n');
    case 'spec.nodeName':
      return (pod.spec as Loose).nodeName ?? '';
    case 'spec.serviceAccountName':
      return (pod.spec as Loose).serviceAccountName ?? '';
    case 'status.hostIP':
    case 'status.hostIPs':
      return hostIP;
    case 'status.podIP':
    case 'status.podIPs':
      return podIP ?? '';
    default:
      throw new ContainerConfigError(`unsupported fieldPath: ${fieldPath}`);
  }
}

export function resourceValue(
  container: Loose,
  resource: string,
  divisor: string | undefined,
  allocatable: Record<string, string>,
): string {
  const [kind, name] = resource.split('.') as ['limits' | 'requests', string];
  const quantity = (container.resources?.[kind] ?? {})[name] ?? (kind === 'limits' ? allocatable[name] : undefined) ?? '0';
  const divide = divisor ?? '1';
  if (name === 'cpu') return String(Math.ceil(milliValue(quantity) / Math.max(1, milliValue(divide))));
  const value = parseQuantity(quantity).nanos;
  const unit = parseQuantity(divide).nanos || 1_000_000_000n;
  return String(value / unit + (value % unit > 0n ? 1n : 0n));
}

export interface EnvContext {
  store: Store;
  pod: KObject;
  container: Loose;
  hostIP: string;
  podIP?: string;
  allocatable: Record<string, string>;
}

function lookup(store: Store, resource: 'configmaps' | 'secrets', namespace: string, name: string, optional: boolean): Loose | undefined {
  const found = store.peek(resource, `${namespace}/${name}`);
  if (!found && !optional) throw new ContainerConfigError(`${resource === 'configmaps' ? 'configmap' : 'secret'} "${name}" not found`);
  return found;
}

const decodeSecret = (value: string) => Buffer.from(value, 'base64').toString('utf8');

export function containerEnv(context: EnvContext): string[] {
  const { store, pod, container } = context;
  const namespace = pod.metadata.namespace!;
  const spec = pod.spec as Loose;
  const env = new Map<string, string>();
  const kubernetes = store.peek('services', 'default/kubernetes');
  const services = spec.enableServiceLinks === false ? [] : store.values('services', `${namespace}/`);
  for (const service of services) for (const [key, value] of serviceEnv(service)) env.set(key, value);
  if (kubernetes && namespace !== 'default') for (const [key, value] of serviceEnv(kubernetes)) env.set(key, value);
  for (const source of (container.envFrom ?? []) as Loose[]) {
    const prefix = (source.prefix as string | undefined) ?? '';
    if (source.configMapRef) {
      const map = lookup(store, 'configmaps', namespace, source.configMapRef.name, Boolean(source.configMapRef.optional));
      for (const [key, value] of Object.entries((map?.data ?? {}) as Record<string, string>)) env.set(prefix + key, value);
    }
    if (source.secretRef) {
      const secret = lookup(store, 'secrets', namespace, source.secretRef.name, Boolean(source.secretRef.optional));
      for (const [key, value] of Object.entries((secret?.data ?? {}) as Record<string, string>)) env.set(prefix + key, decodeSecret(value));
    }
  }
  const expand = (text: string) =>
    text.replace(/\$\$|\$\(([-._a-zA-Z][-._a-zA-Z0-9]*)\)/g, (match, name: string | undefined) =>
      match === '$$' ? '$' : env.has(name!) ? env.get(name!)! : match,
    );
  for (const variable of (container.env ?? []) as Loose[]) {
    let value: string;
    const from = variable.valueFrom as Loose | undefined;
    if (!from) value = expand((variable.value as string | undefined) ?? '');
    else if (from.fieldRef) value = fieldValue(pod, from.fieldRef.fieldPath, context.hostIP, context.podIP);
    else if (from.resourceFieldRef) {
      const target = from.resourceFieldRef.containerName
        ? ((spec.containers ?? []) as Loose[]).find((c) => c.name === from.resourceFieldRef.containerName)
        : container;
      value = resourceValue(target ?? container, from.resourceFieldRef.resource, from.resourceFieldRef.divisor, context.allocatable);
    } else if (from.configMapKeyRef) {
      const ref = from.configMapKeyRef;
      const map = lookup(store, 'configmaps', namespace, ref.name, Boolean(ref.optional));
      const data = (map?.data ?? {}) as Record<string, string>;
      if (!(ref.key in data)) {
        if (ref.optional) continue;
        throw new ContainerConfigError(`couldn't find key ${ref.key} in ConfigMap ${namespace}/${ref.name}`);
      }
      value = data[ref.key]!;
    } else if (from.secretKeyRef) {
      const ref = from.secretKeyRef;
      const secret = lookup(store, 'secrets', namespace, ref.name, Boolean(ref.optional));
      const data = (secret?.data ?? {}) as Record<string, string>;
      if (!(ref.key in data)) {
        if (ref.optional) continue;
        throw new ContainerConfigError(`couldn't find key ${ref.key} in Secret ${namespace}/${ref.name}`);
      }
      value = decodeSecret(data[ref.key]!);
    } else value = '';
    env.set(variable.name, value);
  }
  return [...env.entries()].map(([key, value]) => `${key}=${value}`);
}

export const memoryBytes = (quantity: string | undefined): number | undefined => (quantity === undefined ? undefined : intValue(quantity));
