import { fail, PASS, type Filter, type FilterRun, type FilterVerdict, type NodeTable, type PlacementRequest } from '@swarm/plugin-sdk';

const UNHEALTHY: FilterVerdict = fail('node unhealthy');

/** The rows whose node is not healthy: one scan of the column (usually none). */
function unhealthyRows(healthy: Uint8Array): number[] {
  const rows: number[] = [];
  for (let row = healthy.indexOf(0); row !== -1; row = healthy.indexOf(0, row + 1)) rows.push(row);
  return rows;
}

/** Swarm classic's health filter: only healthy nodes. */
export class HealthFilter implements Filter {
  readonly name = 'health';

  prepare(_request: PlacementRequest, table: NodeTable): FilterRun {
    const healthy = table.healthy;
    return {
      conditions: [],
      refusalMessage: 'No healthy node available in the cluster',
      rowsToCheck: unhealthyRows(healthy),
      check: (_node, row) => (healthy[row] === 1 ? PASS : UNHEALTHY),
    };
  }
}
