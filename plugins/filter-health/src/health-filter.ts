import { fail, PASS, type Filter, type FilterRun, type FilterVerdict, type NodeTable, type PlacementRequest } from '@swarm/plugin-sdk';

const UNHEALTHY: FilterVerdict = fail('node unhealthy');

/** Swarm classic's health filter: only healthy nodes. */
export class HealthFilter implements Filter {
  readonly name = 'health';

  prepare(_request: PlacementRequest, table: NodeTable): FilterRun {
    const healthy = table.healthy;
    return {
      conditions: [],
      refusalMessage: 'No healthy node available in the cluster',
      check: (_node, row) => (healthy[row] === 1 ? PASS : UNHEALTHY),
    };
  }
}
