// The endpoints and endpointslice controllers: for every Service with a selector, an Endpoints
// object (ready pods under addresses, the others under notReadyAddresses, with hostnames for
// pods whose subdomain is the service) and an EndpointSlice, kept current as pods come, go and
// change readiness. The cluster DNS answers from these.
import { randomUUID } from 'node:crypto';
import { generateName } from '../model/names.js';
import { now } from '../model/time.js';
import type { KObject, Store } from '../store/store.js';
import type { Loose } from '../model/loose.js';

interface Address {
  ip: string;
  hostname?: string;
  nodeName?: string;
  targetRef: Loose;
  ready: boolean;
  terminating: boolean;
}

const SLICE_MANAGER = 'endpointslice-controller.k8s.io';
const podReady = (pod: KObject) =>
  (((pod.status as Loose | undefined)?.conditions ?? []) as Loose[]).some((c) => c.type === 'Ready' && c.status === 'True');

function resolvePort(port: Loose, pod: KObject): number | undefined {
  const target = port.targetPort ?? port.port;
  if (typeof target === 'number') return target;
  for (const container of ((pod.spec as Loose).containers ?? []) as Loose[]) {
    for (const containerPort of (container.ports ?? []) as Loose[]) {
      if (containerPort.name === target && (containerPort.protocol ?? 'TCP') === port.protocol) return containerPort.containerPort;
    }
  }
  return undefined;
}

const ipOrder = (a: { ip: string }, b: { ip: string }) => {
  const key = (ip: string) =>
    ip
      .split('.')
      .map((n) => n.padStart(3, '0'))
      .join('.');
  return key(a.ip).localeCompare(key(b.ip));
};

const pairKey = (namespace: string, key: string, value: string) => `${namespace}\u0000${key}=${value}`;
const labelPairs = (object: KObject | undefined) =>
  object ? Object.entries(object.metadata.labels ?? {}).map(([key, value]) => pairKey(object.metadata.namespace ?? '', key, value)) : [];

function addTo(index: Map<string, Set<string>>, pair: string, key: string): void {
  let set = index.get(pair);
  if (!set) index.set(pair, (set = new Set()));
  set.add(key);
}

export class EndpointsController {
  /** Services to recompute (namespace/name). */
  private readonly dirty = new Set<string>();
  /** Endpoints this controller wrote: they go with their service. */
  private readonly managed = new Set<string>();
  /** Pods and services indexed by label pair, so a change looks only at the services it can concern. */
  private readonly podsByPair = new Map<string, Set<string>>();
  private readonly servicesByPair = new Map<string, Set<string>>();
  private readonly servicePair = new Map<string, string>();
  private unsubscribe: Array<() => void> = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly store: Store) {}

  start(): void {
    this.unsubscribe = [
      this.store.subscribe('pods', (event) => this.podChanged(event.object, event.previous, event.type === 'DELETED')),
      this.store.subscribe('services', (event) => this.serviceChanged(event.object, event.type === 'DELETED')),
    ];
    for (const pod of this.store.values('pods')) this.podChanged(pod, undefined, false);
    for (const service of this.store.values('services')) this.serviceChanged(service, false);
    this.timer = setInterval(() => this.flush(), 100);
  }

  stop(): void {
    clearInterval(this.timer);
    for (const unsubscribe of this.unsubscribe) unsubscribe();
  }

  private podChanged(pod: KObject, previous: KObject | undefined, deleted: boolean): void {
    const key = `${pod.metadata.namespace}/${pod.metadata.name}`;
    for (const pair of labelPairs(previous ?? pod)) this.podsByPair.get(pair)?.delete(key);
    if (!deleted) for (const pair of labelPairs(pod)) addTo(this.podsByPair, pair, key);
    for (const pair of [...labelPairs(previous), ...labelPairs(pod)])
      for (const service of this.servicesByPair.get(pair) ?? []) this.dirty.add(service);
  }

  private serviceChanged(service: KObject, deleted: boolean): void {
    const key = `${service.metadata.namespace}/${service.metadata.name}`;
    const old = this.servicePair.get(key);
    if (old) this.servicesByPair.get(old)?.delete(key);
    this.servicePair.delete(key);
    // one selector pair is enough to find a service's candidate pods
    const first = Object.entries(((service.spec as Loose | undefined)?.selector ?? {}) as Record<string, string>).sort()[0];
    if (!deleted && first) {
      const pair = pairKey(service.metadata.namespace ?? '', first[0], first[1]);
      addTo(this.servicesByPair, pair, key);
      this.servicePair.set(key, pair);
    }
    this.dirty.add(key);
  }

  /** Recomputes the endpoints of the services whose pods or selectors changed. */
  flush(): void {
    for (const key of [...this.dirty]) {
      this.dirty.delete(key);
      const service = this.store.peek('services', key);
      if (!service) {
        if (this.managed.delete(key)) this.store.remove('endpoints', key);
        continue;
      }
      const pair = this.servicePair.get(key);
      const candidates = pair
        ? [...(this.podsByPair.get(pair) ?? [])]
            .map((podKey) => this.store.peek('pods', podKey))
            .filter((pod): pod is KObject => pod !== undefined)
        : [];
      this.sync(service, candidates);
    }
  }

  private sync(service: KObject, pods: KObject[]): void {
    const spec = service.spec as Loose;
    const selector = spec.selector as Record<string, string> | undefined;
    if (!selector || Object.keys(selector).length === 0 || spec.type === 'ExternalName') return;
    const namespace = service.metadata.namespace!;
    const groups = new Map<string, { ports: Loose[]; addresses: Address[] }>();
    for (const pod of pods) {
      const labels = pod.metadata.labels ?? {};
      if (!Object.entries(selector).every(([key, value]) => labels[key] === value)) continue;
      const podIP = (pod.status as Loose | undefined)?.podIP as string | undefined;
      if (!podIP) continue;
      const terminating = Boolean(pod.metadata.deletionTimestamp);
      if (terminating && !spec.publishNotReadyAddresses) continue;
      const ports: Loose[] = [];
      for (const port of (spec.ports ?? []) as Loose[]) {
        const number = resolvePort(port, pod);
        if (number === undefined) continue;
        const entry: Loose = { port: number, protocol: port.protocol };
        if (port.name) entry.name = port.name;
        if (port.appProtocol) entry.appProtocol = port.appProtocol;
        ports.push(entry);
      }
      const podSpec = pod.spec as Loose;
      const address: Address = {
        ip: podIP,
        nodeName: podSpec.nodeName,
        targetRef: { kind: 'Pod', namespace, name: pod.metadata.name, uid: pod.metadata.uid },
        ready: spec.publishNotReadyAddresses || (podReady(pod) && !terminating),
        terminating,
      };
      if (podSpec.hostname && podSpec.subdomain === service.metadata.name) address.hostname = podSpec.hostname;
      const key = JSON.stringify(ports);
      const group = groups.get(key) ?? { ports, addresses: [] };
      group.addresses.push(address);
      groups.set(key, group);
    }
    this.writeEndpoints(service, [...groups.values()]);
    this.writeSlices(service, [...groups.values()]);
  }

  private writeEndpoints(service: KObject, groups: Array<{ ports: Loose[]; addresses: Address[] }>): void {
    const namespace = service.metadata.namespace!;
    const toAddress = (a: Address) => {
      const out: Loose = { ip: a.ip };
      if (a.hostname) out.hostname = a.hostname;
      if (a.nodeName) out.nodeName = a.nodeName;
      out.targetRef = a.targetRef;
      return out;
    };
    const subsets = groups.map((group) => {
      const subset: Loose = {};
      const ready = group.addresses.filter((a) => a.ready).sort(ipOrder);
      const notReady = group.addresses.filter((a) => !a.ready).sort(ipOrder);
      if (ready.length) subset.addresses = ready.map(toAddress);
      if (notReady.length) subset.notReadyAddresses = notReady.map(toAddress);
      if (group.ports.length) subset.ports = group.ports;
      return subset;
    });
    const labels: Record<string, string> = { ...(service.metadata.labels ?? {}) };
    if ((service.spec as Loose).clusterIP === 'None') labels['service.kubernetes.io/headless'] = '';
    const desired: Loose = { labels, subsets };
    const current = this.store.peek('endpoints', `${namespace}/${service.metadata.name}`);
    if (current && JSON.stringify({ labels: current.metadata.labels ?? {}, subsets: current.subsets ?? [] }) === JSON.stringify(desired))
      return;
    const endpoints: KObject = {
      kind: 'Endpoints',
      apiVersion: 'v1',
      metadata: {
        name: service.metadata.name,
        namespace,
        uid: current?.metadata.uid ?? randomUUID(),
        creationTimestamp: current?.metadata.creationTimestamp ?? now(),
        labels,
        annotations: { 'endpoints.kubernetes.io/last-change-trigger-time': now() },
      },
    };
    if (subsets.length) endpoints.subsets = subsets;
    this.store.put('endpoints', endpoints);
    this.managed.add(`${namespace}/${service.metadata.name}`);
  }

  private writeSlices(service: KObject, groups: Array<{ ports: Loose[]; addresses: Address[] }>): void {
    const namespace = service.metadata.namespace!;
    const name = service.metadata.name;
    const existing = this.store
      .values('endpointslices.discovery.k8s.io', `${namespace}/`)
      .filter(
        (slice) =>
          slice.metadata.labels?.['kubernetes.io/service-name'] === name &&
          slice.metadata.labels?.['endpointslice.kubernetes.io/managed-by'] === SLICE_MANAGER,
      );
    const wanted = groups.length ? groups : [{ ports: [], addresses: [] }];
    wanted.forEach((group, index) => {
      const endpoints = group.addresses.sort(ipOrder).map((a) => {
        const out: Loose = {
          addresses: [a.ip],
          conditions: { ready: a.ready && !a.terminating, serving: a.ready, terminating: a.terminating },
        };
        if (a.hostname) out.hostname = a.hostname;
        if (a.nodeName) out.nodeName = a.nodeName;
        out.targetRef = a.targetRef;
        return out;
      });
      const labels = {
        ...(service.metadata.labels ?? {}),
        'endpointslice.kubernetes.io/managed-by': SLICE_MANAGER,
        'kubernetes.io/service-name': name,
      };
      const current = existing[index];
      const body = { addressType: 'IPv4', endpoints, ports: group.ports };
      if (
        current &&
        JSON.stringify({ addressType: current.addressType, endpoints: current.endpoints, ports: current.ports }) === JSON.stringify(body)
      )
        return;
      const slice: KObject = {
        kind: 'EndpointSlice',
        apiVersion: 'discovery.k8s.io/v1',
        metadata: {
          name: current?.metadata.name ?? generateName(`${name}-`),
          namespace,
          uid: current?.metadata.uid ?? randomUUID(),
          creationTimestamp: current?.metadata.creationTimestamp ?? now(),
          generateName: `${name}-`,
          labels,
          ownerReferences: [
            { apiVersion: 'v1', kind: 'Service', name, uid: service.metadata.uid!, controller: true, blockOwnerDeletion: true },
          ],
        },
        ...body,
      };
      this.store.put('endpointslices.discovery.k8s.io', slice);
    });
    for (const extra of existing.slice(wanted.length))
      this.store.remove('endpointslices.discovery.k8s.io', `${namespace}/${extra.metadata.name}`);
  }
}
