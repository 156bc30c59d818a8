// metrics.k8s.io/v1beta1 as metrics-server serves it (NodeMetrics and PodMetrics from the
// kubelets' readings), switchable between served, absent (404, no API group) and unavailable
// (the group is registered but its backend does not answer: 503).
import type { ServerResponse } from 'node:http';
import type { ResourceDef } from '../model/resources.js';
import { parseLabelSelector } from '../model/selectors.js';
import { now } from '../model/time.js';
import type { KObject, Store } from '../store/store.js';
import { sendJson } from './http-io.js';
import type { NodeAgents, UsageReading } from './node-agents.js';
import type { ResourceRequest } from './request-info.js';
import { errors } from './status.js';
import type { Loose } from '../model/loose.js';

export type MetricsMode = 'served' | 'absent' | 'unavailable';

const API_VERSION = 'metrics.k8s.io/v1beta1';
const usage = (reading: UsageReading) => ({
  cpu: `${Math.round(reading.cpuNanoCores)}n`,
  memory: `${Math.round(reading.memoryBytes / 1024)}Ki`,
});

export class MetricsApi {
  constructor(
    private readonly store: Store,
    private readonly agents: NodeAgents,
  ) {}

  async handle(def: ResourceDef, info: ResourceRequest, query: URLSearchParams, response: ServerResponse): Promise<void> {
    const labels = parseLabelSelector(query.get('labelSelector') ?? undefined);
    if (def.kind === 'NodeMetrics') {
      const nodes = this.store
        .values('nodes')
        .filter((node) => (info.name ? node.metadata.name === info.name : labels(node.metadata.labels)));
      if (info.name && nodes.length === 0) throw errors.notFound({ group: 'metrics.k8s.io', resource: 'nodes' }, info.name);
      const items = (await Promise.all(nodes.map((node) => this.nodeMetrics(node)))).filter((item) => item !== undefined);
      if (info.name) {
        if (items.length === 0) throw errors.notFound({ group: 'metrics.k8s.io', resource: 'nodes' }, info.name);
        return sendJson(response, 200, items[0]);
      }
      return sendJson(response, 200, { kind: 'NodeMetricsList', apiVersion: API_VERSION, metadata: {}, items });
    }
    const prefix = info.namespace ? `${info.namespace}/` : undefined;
    const pods = this.store
      .values('pods', prefix)
      .filter((pod) => (pod.status as Loose | undefined)?.phase === 'Running')
      .filter((pod) => (info.name ? pod.metadata.name === info.name : labels(pod.metadata.labels)));
    const items = (await Promise.all(pods.map((pod) => this.podMetrics(pod)))).filter((item) => item !== undefined);
    if (info.name) {
      if (items.length === 0) throw errors.notFound({ group: 'metrics.k8s.io', resource: 'pods' }, info.name);
      return sendJson(response, 200, items[0]);
    }
    sendJson(response, 200, { kind: 'PodMetricsList', apiVersion: API_VERSION, metadata: {}, items });
  }

  private async nodeMetrics(node: KObject) {
    const agent = this.agents.agentFor(node.metadata.name);
    if (!agent) return undefined;
    const reading = await agent.nodeUsage().catch(() => undefined);
    if (!reading) return undefined;
    return {
      kind: 'NodeMetrics',
      apiVersion: API_VERSION,
      metadata: { name: node.metadata.name, creationTimestamp: now(), labels: node.metadata.labels ?? {} },
      timestamp: now(),
      window: '20.001s',
      usage: usage(reading),
    };
  }

  private async podMetrics(pod: KObject) {
    const agent = this.agents.agentFor((pod.spec as Loose).nodeName ?? '');
    if (!agent) return undefined;
    const containers = await agent.containerUsage(pod).catch(() => undefined);
    if (!containers || containers.length === 0) return undefined;
    return {
      kind: 'PodMetrics',
      apiVersion: API_VERSION,
      metadata: { name: pod.metadata.name, namespace: pod.metadata.namespace, creationTimestamp: now(), labels: pod.metadata.labels ?? {} },
      timestamp: now(),
      window: '20.001s',
      containers: containers.map((container) => ({ name: container.name, usage: usage(container.usage) })),
    };
  }
}
