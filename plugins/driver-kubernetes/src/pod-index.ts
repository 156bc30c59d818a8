import type * as k8s from '@kubernetes/client-node';
import type { Container } from '@swarm/plugin-sdk';
import type { KubeNode } from './kube-node.js';
import { PodContainer } from './pod-container.js';

type Waiter = { podName: string; check: (container: PodContainer | undefined) => boolean; resolve: () => void };

/**
 * Swarm's pods as docker containers, kept current by the pod watch: looked up by ID, prefix,
 * docker name and node. Callers wait here for a pod to reach a state (started, stopped, gone).
 */
export class PodIndex {
  private readonly byPod = new Map<string, PodContainer>();
  private readonly byNode = new Map<string, PodContainer[]>();
  private readonly waiters = new Set<Waiter>();

  constructor(private readonly nodeFor: (pod: k8s.V1Pod) => KubeNode) {}

  /** Replaces or adds a pod; returns the previous and the new container. */
  put(pod: k8s.V1Pod): { before: PodContainer | undefined; after: PodContainer } {
    const podName = pod.metadata?.name ?? '';
    const before = this.byPod.get(podName);
    if (before && isOlder(pod, before.pod)) return { before, after: before };
    const after = new PodContainer(pod, this.nodeFor(pod));
    this.byPod.set(podName, after);
    if (before) this.ungroup(before);
    this.group(after);
    this.settle(podName, after);
    return { before, after };
  }

  remove(podName: string, uid?: string): PodContainer | undefined {
    const before = this.byPod.get(podName);
    if (!before || (uid && before.pod.metadata?.uid !== uid)) return undefined;
    this.byPod.delete(podName);
    this.ungroup(before);
    this.settle(podName, undefined);
    return before;
  }

  replaceAll(pods: readonly k8s.V1Pod[]): { added: PodContainer[]; removed: PodContainer[]; changed: Array<[PodContainer, PodContainer]> } {
    const seen = new Set<string>();
    const added: PodContainer[] = [];
    const changed: Array<[PodContainer, PodContainer]> = [];
    for (const pod of pods) {
      const podName = pod.metadata?.name ?? '';
      seen.add(podName);
      const before = this.byPod.get(podName);
      const after = new PodContainer(pod, this.nodeFor(pod));
      this.byPod.set(podName, after);
      if (before) changed.push([before, after]);
      else added.push(after);
    }
    const removed = [...this.byPod.values()].filter((container) => !seen.has(container.podName));
    for (const container of removed) this.byPod.delete(container.podName);
    this.regroup();
    for (const podName of new Set([...seen, ...removed.map((container) => container.podName)]))
      this.settle(podName, this.byPod.get(podName));
    return { added, removed, changed };
  }

  /** Re-reads every container's node (a node appeared or went). */
  rebind(): void {
    for (const [podName, container] of this.byPod) this.byPod.set(podName, new PodContainer(container.pod, this.nodeFor(container.pod)));
    this.regroup();
  }

  /** Rebuilds the per-node lists (a whole list or a node change); single pod events update them in place. */
  private regroup(): void {
    const before = [...this.byNode.values()].flat();
    this.byNode.clear();
    for (const container of this.byPod.values()) this.group(container);
    for (const container of before) this.nodeFor(container.pod).changed();
  }

  /** Adds a container to its node's list; the node's scheduler row is read again (containers, reservations). */
  private group(container: PodContainer): void {
    const list = this.byNode.get(container.node.name);
    if (list) list.push(container);
    else this.byNode.set(container.node.name, [container]);
    this.nodeFor(container.pod).changed();
  }

  private ungroup(container: PodContainer): void {
    const list = this.byNode.get(container.node.name);
    const at = list?.indexOf(container) ?? -1;
    if (list && at >= 0) list.splice(at, 1);
    this.nodeFor(container.pod).changed();
  }

  all(): PodContainer[] {
    return [...this.byPod.values()];
  }

  onNode(node: string): readonly PodContainer[] {
    return this.byNode.get(node) ?? [];
  }

  byPodName(podName: string): PodContainer | undefined {
    return this.byPod.get(podName);
  }

  nameTaken(dockerName: string): boolean {
    for (const container of this.byPod.values()) if (container.name === dockerName) return true;
    return false;
  }

  /** Full or unique-prefix ID, docker name, `/name`; an ambiguous prefix finds nothing. */
  find(idOrName: string, among: Iterable<PodContainer> = this.byPod.values()): PodContainer | undefined {
    if (idOrName === '') return undefined;
    const bare = idOrName.startsWith('/') ? idOrName.slice(1) : idOrName;
    const list = [...among];
    const exact = list.find((container) => container.id === bare || container.name === bare);
    if (exact) return exact;
    const prefixed = list.filter((container) => container.id.startsWith(bare));
    return prefixed.length === 1 ? prefixed[0] : undefined;
  }

  findOn(node: string, idOrName: string): Container | undefined {
    return this.find(idOrName, this.onNode(node));
  }

  /** Resolves once `check` holds for the pod (undefined: it is gone); rejects after `timeoutMs`. */
  waitFor(podName: string, check: (container: PodContainer | undefined) => boolean, timeoutMs: number): Promise<boolean> {
    if (check(this.byPod.get(podName))) return Promise.resolve(true);
    return new Promise((resolve) => {
      const waiter: Waiter = {
        podName,
        check,
        resolve: () => {
          clearTimeout(timer);
          resolve(true);
        },
      };
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        resolve(false);
      }, timeoutMs);
      this.waiters.add(waiter);
    });
  }

  private settle(podName: string, container: PodContainer | undefined): void {
    for (const waiter of this.waiters) {
      if (waiter.podName !== podName || !waiter.check(container)) continue;
      this.waiters.delete(waiter);
      waiter.resolve();
    }
  }
}

/**
 * Whether `pod` is an older version of the same pod than `known` (a read made by the driver can
 * overtake a watch event). resourceVersions are opaque to clients, but every API server issues
 * them as increasing integers; anything else is taken as new.
 */
function isOlder(pod: k8s.V1Pod, known: k8s.V1Pod): boolean {
  if (pod.metadata?.uid !== known.metadata?.uid) return false;
  const next = Number(pod.metadata?.resourceVersion);
  const current = Number(known.metadata?.resourceVersion);
  return Number.isSafeInteger(next) && Number.isSafeInteger(current) && next < current;
}
