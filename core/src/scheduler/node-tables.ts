import { type Node, type NodeTable } from '@swarm/plugin-sdk';
import { NodeColumns } from '@swarm/plugin-sdk/helpers';

/**
 * The scheduler's node facts: one NodeColumns that follows the cluster's nodes and re-reads only
 * the nodes that changed. A placement started while another one runs (a filter that schedules)
 * reads its own one-off table, so the outer one's rows stay as they were.
 */
export class NodeTables {
  private readonly columns = new NodeColumns();
  private busy = false;

  use<T>(nodes: readonly Node[], body: (table: NodeTable) => T): T {
    if (this.busy) return body(NodeColumns.of(nodes));
    this.busy = true;
    try {
      return body(this.columns.sync(nodes));
    } finally {
      this.busy = false;
    }
  }
}
