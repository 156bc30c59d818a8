// A default-scheduler for pods that name it (spec.schedulerName, the default) and have no node:
// the filters of the real one that matter here (node readiness through taints, unschedulable,
// nodeSelector and required node affinity, resources, host ports), least-allocated scoring,
// binding with a Scheduled event, or PodScheduled=False Unschedulable with the real message
// ("0/3 nodes are available: 1 Insufficient cpu, 2 node(s) had untolerated taint ...").
// Pods with another schedulerName (a driver that binds them itself) are left alone.
import { milliValue, intValue } from '../model/quantity.js';
import { now } from '../model/time.js';
import { assignToNode } from '../api/pod-subresources.js';
import type { Registry } from '../api/registry.js';
import type { KObject } from '../store/store.js';
import type { EventRecorder } from './events.js';
import { untoleratedTaint, type Taint, type Toleration } from './taints.js';
import type { Loose } from '../model/loose.js';

interface Fit {
  node: KObject;
  reason?: string;
}

function requests(pod: KObject): { cpu: number; memory: number } {
  let cpu = 0;
  let memory = 0;
  for (const container of ((pod.spec as Loose).containers ?? []) as Loose[]) {
    cpu += milliValue(container.resources?.requests?.cpu);
    memory += intValue(container.resources?.requests?.memory);
  }
  for (const container of ((pod.spec as Loose).initContainers ?? []) as Loose[]) {
    cpu = Math.max(cpu, milliValue(container.resources?.requests?.cpu));
    memory = Math.max(memory, intValue(container.resources?.requests?.memory));
  }
  return { cpu, memory };
}

function hostPorts(pod: KObject): string[] {
  return ((pod.spec as Loose).containers as Loose[]).flatMap((container) =>
    ((container.ports ?? []) as Loose[])
      .filter((port) => port.hostPort)
      .map((port) => `${port.protocol ?? 'TCP'}/${port.hostIP || '0.0.0.0'}/${port.hostPort}`),
  );
}

function matchesExpression(labels: Record<string, string>, expression: Loose): boolean {
  const value = labels[expression.key];
  const values = (expression.values ?? []) as string[];
  switch (expression.operator) {
    case 'In':
      return value !== undefined && values.includes(value);
    case 'NotIn':
      return value === undefined || !values.includes(value);
    case 'Exists':
      return value !== undefined;
    case 'DoesNotExist':
      return value === undefined;
    case 'Gt':
      return value !== undefined && Number(value) > Number(values[0]);
    case 'Lt':
      return value !== undefined && Number(value) < Number(values[0]);
    default:
      return false;
  }
}

function affinityMatches(pod: KObject, node: KObject): boolean {
  const labels = node.metadata.labels ?? {};
  for (const [key, value] of Object.entries(((pod.spec as Loose).nodeSelector ?? {}) as Record<string, string>))
    if (labels[key] !== value) return false;
  const terms = ((pod.spec as Loose).affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ??
    []) as Loose[];
  if (terms.length === 0) return true;
  return terms.some(
    (term) =>
      ((term.matchExpressions ?? []) as Loose[]).every((expression) => matchesExpression(labels, expression)) &&
      ((term.matchFields ?? []) as Loose[]).every((expression) => matchesExpression({ 'metadata.name': node.metadata.name }, expression)),
  );
}

export class Scheduler {
  private timer: NodeJS.Timeout | undefined;
  private unsubscribe: Array<() => void> = [];
  private dirty = true;
  /** Pods told they are unschedulable, with the message, so the event is not repeated for nothing. */
  private readonly reported = new Map<string, string>();

  constructor(
    private readonly registry: Registry,
    private readonly events: EventRecorder,
  ) {}

  start(): void {
    const mark = () => {
      this.dirty = true;
    };
    this.unsubscribe = ['pods', 'nodes', 'persistentvolumeclaims'].map((resource) => this.registry.store.subscribe(resource, mark));
    this.timer = setInterval(() => this.cycle(), 200);
  }

  stop(): void {
    clearInterval(this.timer);
    for (const unsubscribe of this.unsubscribe) unsubscribe();
  }

  private cycle(): void {
    if (!this.dirty) return;
    this.dirty = false;
    const { store } = this.registry;
    const pending = store.values('pods').filter((pod) => {
      const spec = pod.spec as Loose;
      return (
        !spec.nodeName &&
        spec.schedulerName === 'default-scheduler' &&
        !pod.metadata.deletionTimestamp &&
        !(spec.schedulingGates ?? []).length
      );
    });
    if (pending.length === 0) return;
    const nodes = store.values('nodes');
    const usage = new Map<string, { cpu: number; memory: number; pods: number; ports: Set<string> }>();
    for (const node of nodes) usage.set(node.metadata.name, { cpu: 0, memory: 0, pods: 0, ports: new Set() });
    for (const pod of store.values('pods')) {
      const used = usage.get((pod.spec as Loose).nodeName ?? '');
      const phase = (pod.status as Loose | undefined)?.phase;
      if (!used || phase === 'Succeeded' || phase === 'Failed') continue;
      const asked = requests(pod);
      used.cpu += asked.cpu;
      used.memory += asked.memory;
      used.pods++;
      for (const port of hostPorts(pod)) used.ports.add(port);
    }
    for (const pod of pending) this.schedule(pod, nodes, usage);
  }

  /** What keeps a pod from scheduling before any node is looked at (its claims). */
  private preFilter(pod: KObject): string | undefined {
    for (const volume of ((pod.spec as Loose).volumes ?? []) as Loose[]) {
      const name = volume.persistentVolumeClaim?.claimName as string | undefined;
      if (!name) continue;
      const claim = this.registry.store.peek('persistentvolumeclaims', `${pod.metadata.namespace}/${name}`);
      if (!claim) return `persistentvolumeclaim "${name}" not found`;
      if ((claim.status as Loose | undefined)?.phase !== 'Bound') return 'pod has unbound immediate PersistentVolumeClaims';
    }
    return undefined;
  }

  private schedule(
    pod: KObject,
    nodes: KObject[],
    usage: Map<string, { cpu: number; memory: number; pods: number; ports: Set<string> }>,
  ): void {
    const key = `${pod.metadata.namespace}/${pod.metadata.name}`;
    const blocked = this.preFilter(pod);
    if (blocked) {
      const message = `0/${nodes.length} nodes are available: ${blocked}. preemption: 0/${nodes.length} nodes are available: ${nodes.length} Preemption is not helpful for scheduling.`;
      if (this.reported.get(key) !== message) {
        this.reported.set(key, message);
        this.setUnschedulable(pod, message);
        this.events.record(pod, 'Warning', 'FailedScheduling', message, { component: 'default-scheduler' });
      }
      return;
    }
    const asked = requests(pod);
    const ports = hostPorts(pod);
    const tolerations = ((pod.spec as Loose).tolerations ?? []) as Toleration[];
    const fits: Fit[] = nodes.map((node) => {
      const spec = (node.spec ?? {}) as Loose;
      const taints = (spec.taints ?? []) as Taint[];
      if (
        spec.unschedulable &&
        !tolerations.some((t) => t.key === 'node.kubernetes.io/unschedulable' || (t.operator === 'Exists' && !t.key))
      )
        return { node, reason: 'node(s) were unschedulable' };
      if (!affinityMatches(pod, node)) return { node, reason: "node(s) didn't match Pod's node affinity/selector" };
      const taint = untoleratedTaint(taints, tolerations, ['NoSchedule', 'NoExecute']);
      if (taint) return { node, reason: `node(s) had untolerated taint {${taint.key}: ${taint.value ?? ''}}` };
      const allocatable = ((node.status as Loose | undefined)?.allocatable ?? {}) as Record<string, string>;
      const used = usage.get(node.metadata.name)!;
      if (used.pods + 1 > intValue(allocatable.pods ?? '110')) return { node, reason: 'Too many pods' };
      if (asked.cpu && used.cpu + asked.cpu > milliValue(allocatable.cpu ?? '0')) return { node, reason: 'Insufficient cpu' };
      if (asked.memory && used.memory + asked.memory > intValue(allocatable.memory ?? '0')) return { node, reason: 'Insufficient memory' };
      if (ports.some((port) => used.ports.has(port))) return { node, reason: "node(s) didn't have free ports for the requested pod ports" };
      return { node };
    });
    const feasible = fits.filter((fit) => !fit.reason);
    if (feasible.length === 0) {
      const counts = new Map<string, number>();
      for (const fit of fits) counts.set(fit.reason!, (counts.get(fit.reason!) ?? 0) + 1);
      // sorted as strings ("1 node(s) were unschedulable", "2 Insufficient cpu"), as the scheduler's FitError does
      const parts = [...counts.entries()].map(([reason, count]) => `${count} ${reason}`).sort();
      const message = `0/${nodes.length} nodes are available${parts.length ? `: ${parts.join(', ')}` : ''}. preemption: 0/${nodes.length} nodes are available: ${nodes.length} Preemption is not helpful for scheduling.`;
      if (this.reported.get(key) === message) return;
      this.reported.set(key, message);
      this.setUnschedulable(pod, message);
      this.events.record(pod, 'Warning', 'FailedScheduling', message, { component: 'default-scheduler' });
      return;
    }
    const score = (fit: Fit) => {
      const allocatable = ((fit.node.status as Loose).allocatable ?? {}) as Record<string, string>;
      const used = usage.get(fit.node.metadata.name)!;
      const cpu = 1 - (used.cpu + asked.cpu) / Math.max(1, milliValue(allocatable.cpu ?? '1'));
      const memory = 1 - (used.memory + asked.memory) / Math.max(1, intValue(allocatable.memory ?? '1'));
      return cpu + memory - used.pods / 1000;
    };
    const best = feasible.reduce((a, b) => (score(b) > score(a) ? b : a));
    this.bind(pod, best.node.metadata.name);
    this.reported.delete(key);
    const used = usage.get(best.node.metadata.name)!;
    used.cpu += asked.cpu;
    used.memory += asked.memory;
    used.pods++;
    for (const port of ports) used.ports.add(port);
  }

  private setUnschedulable(pod: KObject, message: string): void {
    const current = this.registry.store.peek('pods', `${pod.metadata.namespace}/${pod.metadata.name}`);
    if (!current) return;
    const updated = structuredClone(current);
    const status = (updated.status ??= {}) as Loose;
    const conditions = ((status.conditions ?? []) as Loose[]).filter((c) => c.type !== 'PodScheduled');
    conditions.push({
      type: 'PodScheduled',
      status: 'False',
      lastProbeTime: null,
      lastTransitionTime: now(),
      reason: 'Unschedulable',
      message,
    });
    status.conditions = conditions;
    this.registry.store.put('pods', updated);
  }

  private bind(pod: KObject, nodeName: string): void {
    const current = this.registry.store.peek('pods', `${pod.metadata.namespace}/${pod.metadata.name}`);
    if (!current || (current.spec as Loose).nodeName) return;
    const bound = assignToNode(this.registry.store, current, nodeName);
    this.events.record(
      bound,
      'Normal',
      'Scheduled',
      `Successfully assigned ${pod.metadata.namespace}/${pod.metadata.name} to ${nodeName}`,
      { component: 'default-scheduler' },
    );
  }
}
