// The double's kubelets: one subscription to pod changes dispatched by spec.nodeName, one timer
// for every node's heartbeats (so 1,000 hollow nodes cost one timer), and the API server's way
// to reach a node's kubelet for logs, exec, attach and metrics.
import type { NodeAgents, PodAgent } from '../api/node-agents.js';
import type { Store } from '../store/store.js';
import type { Kubelet } from './kubelet.js';
import type { Loose } from '../model/loose.js';

export class KubeletManager implements NodeAgents {
  readonly kubelets = new Map<string, Kubelet>();
  private unsubscribe: (() => void) | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly store: Store) {}

  start(): void {
    this.unsubscribe = this.store.subscribe('pods', (event) => {
      const nodeName = (event.object.spec as Loose | undefined)?.nodeName as string | undefined;
      if (nodeName) this.kubelets.get(nodeName)?.podEvent(event);
    });
    this.timer = setInterval(() => {
      for (const kubelet of this.kubelets.values()) kubelet.tick();
    }, 1000);
  }

  stop(): void {
    this.unsubscribe?.();
    clearInterval(this.timer);
  }

  add(kubelet: Kubelet): void {
    this.kubelets.set(kubelet.name, kubelet);
  }

  remove(name: string): Kubelet | undefined {
    const kubelet = this.kubelets.get(name);
    kubelet?.stop();
    this.kubelets.delete(name);
    return kubelet;
  }

  agentFor(nodeName: string): PodAgent | undefined {
    const kubelet = this.kubelets.get(nodeName);
    return kubelet?.running ? kubelet : undefined;
  }
}
