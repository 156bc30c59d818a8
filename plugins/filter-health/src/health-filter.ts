import { fail, PASS, type Filter, type FilterRun, type FilterVerdict, type Node } from '@swarm/plugin-sdk';

const UNHEALTHY: FilterVerdict = fail('node unhealthy');

/** Swarm classic's health filter: only healthy nodes. */
export class HealthFilter implements Filter {
  readonly name = 'health';

  private readonly run: FilterRun = Object.freeze({
    conditions: [],
    refusalMessage: 'No healthy node available in the cluster',
    check: (node: Node) => (node.isHealthy() ? PASS : UNHEALTHY),
  });

  prepare(): FilterRun {
    return this.run;
  }
}
