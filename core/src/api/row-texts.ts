import type { Container } from '@swarm/plugin-sdk';
import type { ContainerSummary } from '@swarm/plugin-sdk/docker';

interface RowText {
  readonly labels: Container['labels'];
  readonly nodeName: string;
  readonly nodeIp: string;
  readonly healthy: boolean;
  readonly status: string | undefined;
  readonly text: string;
}

/**
 * Each container's `docker ps` row as JSON text, kept while what it is made of is the same: the
 * engine's summary (drivers replace it on a change, but may update its STATUS text in place, as
 * "Up 2 minutes" ages), the container's labels, its node's name, IP and health. Serialising the
 * rows was most of the front's time for a list; a row is rebuilt only after its container changed.
 * One per API server (deployments share nothing), held weakly by the summaries so removed
 * containers take their rows with them.
 */
export class RowTexts {
  private readonly rows = new WeakMap<ContainerSummary, RowText>();

  text(container: Container, present: (container: Container) => unknown): string {
    const { summary, labels, node } = container;
    const healthy = node.isHealthy();
    const kept = this.rows.get(summary);
    if (
      kept &&
      kept.labels === labels &&
      kept.nodeName === node.name &&
      kept.nodeIp === node.ip &&
      kept.healthy === healthy &&
      kept.status === summary.Status
    )
      return kept.text;
    const text = JSON.stringify(present(container));
    this.rows.set(summary, { labels, nodeName: node.name, nodeIp: node.ip, healthy, status: summary.Status, text });
    return text;
  }
}
