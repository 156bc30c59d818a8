// The node lifecycle controller: a node whose kubelet stops renewing its Lease for the grace
// period gets its conditions set to Unknown; NotReady and unreachable nodes get the
// node.kubernetes.io/not-ready|unreachable taints (NoSchedule and NoExecute), cordoned nodes
// node.kubernetes.io/unschedulable; pods on a node that is not Ready are marked not ready, and
// pods that do not tolerate a NoExecute taint are evicted (after their tolerationSeconds).
import { findResource } from '../model/resources.js';
import { now } from '../model/time.js';
import type { Registry } from '../api/registry.js';
import { ApiError } from '../api/status.js';
import type { KObject } from '../store/store.js';
import type { EventRecorder } from './events.js';
import { tolerates, type Taint, type Toleration } from './taints.js';
import type { Loose } from '../model/loose.js';

const NOT_READY = 'node.kubernetes.io/not-ready';
const UNREACHABLE = 'node.kubernetes.io/unreachable';
const UNSCHEDULABLE = 'node.kubernetes.io/unschedulable';
const MANAGED = new Set([NOT_READY, UNREACHABLE, UNSCHEDULABLE]);
const PODS = findResource('', 'v1', 'pods')!;

export interface NodeLifecycleControllerDeps {
  readonly registry: Registry;
  readonly events: EventRecorder;
  /** How long a node may go without renewing its lease before it is Unknown (node-monitor-grace-period). */
  readonly gracePeriodSeconds: number;
}

export class NodeLifecycleController {
  private readonly registry: Registry;
  private readonly events: EventRecorder;
  private readonly gracePeriodSeconds: number;

  private timer: NodeJS.Timeout | undefined;

  constructor({ registry, events, gracePeriodSeconds }: NodeLifecycleControllerDeps) {
    this.registry = registry;
    this.events = events;
    this.gracePeriodSeconds = gracePeriodSeconds;
  }

  start(): void {
    this.timer = setInterval(() => this.monitor(), 500);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  monitor(): void {
    const { store } = this.registry;
    for (const current of store.values('nodes')) {
      let node = current;
      const lease = store.peek('leases.coordination.k8s.io', `kube-node-lease/${node.metadata.name}`);
      const conditions = ((node.status as Loose | undefined)?.conditions ?? []) as Loose[];
      const ready = conditions.find((c) => c.type === 'Ready');
      const renewed = Math.max(
        lease ? new Date((lease.spec as Loose).renewTime ?? 0).getTime() : 0,
        ready?.lastHeartbeatTime ? new Date(ready.lastHeartbeatTime).getTime() : 0,
        new Date(node.metadata.creationTimestamp ?? 0).getTime(),
      );
      if (ready && ready.status !== 'Unknown' && Date.now() - renewed > this.gracePeriodSeconds * 1000) {
        node = structuredClone(node);
        const time = now();
        for (const condition of ((node.status as Loose).conditions ?? []) as Loose[]) {
          condition.status = 'Unknown';
          condition.reason = 'NodeStatusUnknown';
          condition.message = 'Kubelet stopped posting node status.';
          condition.lastTransitionTime = time;
        }
        node = store.put('nodes', node);
        this.events.record(node, 'Normal', 'NodeNotReady', `Node ${node.metadata.name} status is now: NodeNotReady`, {
          component: 'node-controller',
        });
      }
      node = this.reconcileTaints(node);
      const readyNow = (((node.status as Loose | undefined)?.conditions ?? []) as Loose[]).find((c) => c.type === 'Ready')?.status;
      if (readyNow !== 'True') this.markPodsNotReady(node.metadata.name);
      this.evict(node);
    }
  }

  private reconcileTaints(node: KObject): KObject {
    const spec = (node.spec ?? {}) as Loose;
    const ready = ((((node.status as Loose | undefined)?.conditions ?? []) as Loose[]).find((c) => c.type === 'Ready')?.status ??
      'Unknown') as string;
    const wanted: Taint[] = [];
    if (ready === 'False') wanted.push({ key: NOT_READY, effect: 'NoSchedule' }, { key: NOT_READY, effect: 'NoExecute' });
    if (ready === 'Unknown') wanted.push({ key: UNREACHABLE, effect: 'NoSchedule' }, { key: UNREACHABLE, effect: 'NoExecute' });
    if (spec.unschedulable) wanted.push({ key: UNSCHEDULABLE, effect: 'NoSchedule' });
    const current = (spec.taints ?? []) as Taint[];
    const same = (a: Taint, b: Taint) => a.key === b.key && a.effect === b.effect;
    const kept = current.filter((taint) => !MANAGED.has(taint.key) || wanted.some((w) => same(w, taint)));
    const added = wanted
      .filter((w) => !current.some((taint) => same(w, taint)))
      .map((taint) => (taint.effect === 'NoExecute' ? { ...taint, timeAdded: now() } : taint));
    if (added.length === 0 && kept.length === current.length) return node;
    const updated = structuredClone(node);
    const taints = [...kept, ...added];
    if (taints.length) (updated.spec as Loose).taints = taints;
    else delete (updated.spec as Loose).taints;
    return this.registry.store.put('nodes', updated);
  }

  private markPodsNotReady(nodeName: string): void {
    const { store } = this.registry;
    for (const pod of store.values('pods')) {
      if ((pod.spec as Loose).nodeName !== nodeName) continue;
      const conditions = ((pod.status as Loose | undefined)?.conditions ?? []) as Loose[];
      const ready = conditions.find((c) => c.type === 'Ready');
      if (!ready || ready.status === 'False') continue;
      const updated = structuredClone(pod);
      const time = now();
      for (const condition of ((updated.status as Loose).conditions ?? []) as Loose[]) {
        if (condition.type === 'Ready') {
          condition.status = 'False';
          condition.lastTransitionTime = time;
        }
      }
      store.put('pods', updated);
    }
  }

  private evict(node: KObject): void {
    const noExecute = (((node.spec as Loose | undefined)?.taints ?? []) as Taint[]).filter((taint) => taint.effect === 'NoExecute');
    if (noExecute.length === 0) return;
    for (const pod of this.registry.store.values('pods')) {
      if ((pod.spec as Loose).nodeName !== node.metadata.name || pod.metadata.deletionTimestamp) continue;
      const tolerations = ((pod.spec as Loose).tolerations ?? []) as Toleration[];
      let deadline = Infinity;
      let untolerated = false;
      for (const taint of noExecute) {
        const matching = tolerations.filter((toleration) => tolerates(toleration, taint));
        if (matching.length === 0) {
          untolerated = true;
          break;
        }
        if (matching.every((t) => t.tolerationSeconds !== undefined)) {
          const seconds = Math.min(...matching.map((t) => t.tolerationSeconds!));
          deadline = Math.min(deadline, new Date(taint.timeAdded ?? now()).getTime() + Math.max(0, seconds) * 1000);
        }
      }
      if (!untolerated && Date.now() < deadline) continue;
      try {
        this.registry.delete(PODS, pod.metadata.namespace, pod.metadata.name);
        this.events.record(
          pod,
          'Normal',
          'TaintManagerEviction',
          `Marking for deletion Pod ${pod.metadata.namespace}/${pod.metadata.name}`,
          { component: 'taint-eviction-controller' },
        );
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
      }
    }
  }
}
