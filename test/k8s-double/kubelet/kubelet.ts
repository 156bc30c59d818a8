// What every kubelet of the double does, engine-backed or hollow: register its Node, keep its
// Lease in kube-node-lease renewed, report node status when it changes (and at least every
// report period, which moves the conditions' lastHeartbeatTime), and write pod statuses.
import type { Readable } from 'node:stream';
import type { LogOptions, PodAgent, StreamIO, UsageReading } from '../api/node-agents.js';
import type { Registry } from '../api/registry.js';
import type { Authenticator } from '../api/auth.js';
import type { EventRecorder } from '../controllers/events.js';
import type { Json } from '../model/decode.js';
import { findResource } from '../model/resources.js';
import { randomUUID } from 'node:crypto';
import { microNow, now } from '../model/time.js';
import type { KObject, Store, StoreEvent } from '../store/store.js';
import { newBootId, nodeLabels, nodeStatus, statusFingerprint, type NodeFacts, type ReadyState } from './node-status.js';
import type { Loose } from '../model/loose.js';

export interface KubeletTiming {
  /** How often kubelet checks its node status (nodeStatusUpdateFrequency, 10 s). */
  nodeStatusUpdateSeconds: number;
  /** How often it reports an unchanged status (nodeStatusReportFrequency, 5 min). */
  nodeStatusReportSeconds: number;
  /** Lease renewal period (10 s) and the duration written in the Lease (40 s). */
  leaseRenewSeconds: number;
  leaseDurationSeconds: number;
  /** CrashLoopBackOff: first delay and cap (10 s, 300 s). */
  backoffInitialSeconds: number;
  backoffMaxSeconds: number;
}

export const DEFAULT_TIMING: KubeletTiming = {
  nodeStatusUpdateSeconds: 10,
  nodeStatusReportSeconds: 300,
  leaseRenewSeconds: 10,
  leaseDurationSeconds: 40,
  backoffInitialSeconds: 10,
  backoffMaxSeconds: 300,
};

export interface KubeletContext {
  store: Store;
  registry: Registry;
  events: EventRecorder;
  authenticator: Authenticator;
  timing: KubeletTiming;
}

export interface NodeOptions {
  name: string;
  labels?: Record<string, string>;
  /** Taints the node registers with (--register-with-taints). */
  taints?: Array<{ key: string; value?: string; effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute' }>;
  /** Overrides of what the node reports (an engine's real NCPU and memory otherwise). */
  capacity?: { cpu?: string; memory?: string; pods?: string };
}

export const PODS = findResource('', 'v1', 'pods')!;

export abstract class Kubelet implements PodAgent {
  running = false;
  private lastReported = 0;
  private lastFingerprint = '';
  private lastLease = 0;
  private lastCheck = 0;
  private lastReadyStatus = 'True';
  private bootID: string;
  /** Set by a test hook: the kubelet reports this readiness whatever its runtime says. */
  forcedReady: ReadyState | undefined;

  constructor(
    readonly options: NodeOptions,
    protected readonly context: KubeletContext,
  ) {
    this.bootID = newBootId(options.name);
  }

  get name(): string {
    return this.options.name;
  }

  protected abstract facts(): NodeFacts;
  protected abstract runtimeReady(): ReadyState;
  /** A pod bound to this node changed (or went). */
  abstract podEvent(event: StoreEvent): void;
  abstract logs(pod: KObject, options: LogOptions): Promise<Readable>;
  abstract exec(pod: KObject, container: string, command: string[], io: StreamIO): Promise<number>;
  abstract attach(pod: KObject, container: string, io: StreamIO): Promise<void>;
  abstract containerUsage(pod: KObject): Promise<Array<{ name: string; usage: UsageReading }>>;
  abstract nodeUsage(): Promise<UsageReading>;

  readiness(): ReadyState {
    return this.forcedReady ?? this.runtimeReady();
  }

  /** Creates the Node (kubelet self-registration), or takes over the existing one. */
  register(): void {
    const { store } = this.context;
    const facts = this.facts();
    const existing = store.peek('nodes', this.name);
    const node: KObject = existing
      ? structuredClone(existing)
      : {
          kind: 'Node',
          apiVersion: 'v1',
          metadata: {
            name: this.name,
            uid: randomUUID(),
            creationTimestamp: now(),
            labels: nodeLabels(this.name, facts.architecture, this.options.labels),
            annotations: { 'node.alpha.kubernetes.io/ttl': '0', 'volumes.kubernetes.io/controller-managed-attach-detach': 'true' },
          },
          spec: {
            ...(facts.podCIDR ? { podCIDR: facts.podCIDR, podCIDRs: [facts.podCIDR] } : {}),
            ...(this.options.taints?.length ? { taints: this.options.taints.map((t) => ({ ...t })) } : {}),
          },
        };
    node.status = nodeStatus(facts, this.readiness(), existing, this.bootID);
    store.put('nodes', node);
    this.lastReported = Date.now();
    this.lastFingerprint = statusFingerprint(node.status);
    if (!existing) this.context.events.record(node, 'Normal', 'Starting', 'Starting kubelet.', { component: 'kubelet', host: this.name });
    this.renewLease();
  }

  /** One status tick: renew the lease when due, report the status when it changed or is due. */
  tick(force = false): void {
    if (!this.running) return;
    const nowMs = Date.now();
    if (force || nowMs - this.lastLease >= this.context.timing.leaseRenewSeconds * 1000) this.renewLease();
    if (
      !force &&
      nowMs - this.lastCheck < this.context.timing.nodeStatusUpdateSeconds * 1000 &&
      this.readiness().status === this.lastReadyStatus
    )
      return;
    this.lastCheck = nowMs;
    const current = this.context.store.peek('nodes', this.name);
    if (!current) return;
    const status = nodeStatus(this.facts(), this.readiness(), current, this.bootID);
    const fingerprint = statusFingerprint(status);
    const due = nowMs - this.lastReported >= this.context.timing.nodeStatusReportSeconds * 1000;
    if (!force && !due && fingerprint === this.lastFingerprint) return;
    const wasReady = (((current.status as Loose)?.conditions ?? []) as Loose[]).find((c) => c.type === 'Ready')?.status;
    const node = structuredClone(current);
    node.status = status;
    this.context.store.put('nodes', node);
    this.lastReported = nowMs;
    this.lastFingerprint = fingerprint;
    const ready = this.readiness().status;
    this.lastReadyStatus = ready;
    if (wasReady !== undefined && wasReady !== ready) {
      this.context.events.record(
        node,
        'Normal',
        ready === 'True' ? 'NodeReady' : 'NodeNotReady',
        `Node ${this.name} status is now: ${ready === 'True' ? 'NodeReady' : 'NodeNotReady'}`,
        {
          component: 'kubelet',
          host: this.name,
        },
      );
    }
  }

  private renewLease(): void {
    const { store, timing } = this.context;
    const key = `kube-node-lease/${this.name}`;
    const node = store.peek('nodes', this.name);
    const existing = store.peek('leases.coordination.k8s.io', key);
    const lease: KObject = existing
      ? structuredClone(existing)
      : {
          kind: 'Lease',
          apiVersion: 'coordination.k8s.io/v1',
          metadata: {
            name: this.name,
            namespace: 'kube-node-lease',
            uid: randomUUID(),
            creationTimestamp: now(),
            ownerReferences: node ? [{ apiVersion: 'v1', kind: 'Node', name: this.name, uid: node.metadata.uid! }] : [],
          },
          spec: {},
        };
    lease.spec = { holderIdentity: this.name, leaseDurationSeconds: timing.leaseDurationSeconds, renewTime: microNow() };
    store.put('leases.coordination.k8s.io', lease);
    this.lastLease = Date.now();
  }

  /** Writes a pod's status as the kubelet's status manager does, only when it changed. */
  protected writePodStatus(namespace: string, name: string, uid: string, status: Json): boolean {
    const { store } = this.context;
    const current = store.peek('pods', `${namespace}/${name}`);
    if (!current || current.metadata.uid !== uid) return false;
    if (JSON.stringify(current.status) === JSON.stringify(status)) return false;
    const pod = structuredClone(current);
    pod.status = status;
    store.put('pods', pod);
    return true;
  }

  start(): void {
    this.running = true;
    this.register();
  }

  stop(): void {
    this.running = false;
  }
}
