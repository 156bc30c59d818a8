import { fail, PASS, type Filter, type FilterRun, type NodeTable, type PlacementRequest } from '@swarm/plugin-sdk';

interface Dependency {
  /** The container that must be on the node. */
  readonly target: string;
  /** How Swarm classic lists it: `--volumes-from=x`, `--link=x:alias`, `--net=container:x`. */
  readonly flag: string;
}

/** `name:ro` or `name:alias` (or the engine's `/name:/this/alias`) → `name`. */
function targetOf(value: string): string {
  const name = value.split(':', 1)[0] ?? '';
  return name.startsWith('/') ? name.slice(1) : name;
}

function dependenciesOf(request: PlacementRequest): Dependency[] {
  const hostConfig = request.config.HostConfig ?? {};
  const dependencies: Dependency[] = [];
  for (const volume of hostConfig.VolumesFrom ?? []) dependencies.push({ target: targetOf(volume), flag: `--volumes-from=${volume}` });
  for (const link of hostConfig.Links ?? []) dependencies.push({ target: targetOf(link), flag: `--link=${link}` });
  const network = hostConfig.NetworkMode ?? '';
  if (network.startsWith('container:')) {
    dependencies.push({ target: network.slice('container:'.length), flag: `--net=${network}` });
  }
  return dependencies;
}

/** Swarm classic's dependency filter: the node must hold every --volumes-from, --link and --net=container: target. */
export class DependencyFilter implements Filter {
  readonly name = 'dependency';

  prepare(request: PlacementRequest, table: NodeTable): FilterRun | undefined {
    const dependencies = dependenciesOf(request);
    if (dependencies.length === 0) return undefined;
    const failures = dependencies.map((dependency) => fail(`dependency ${dependency.flag}`, false));
    const holds = dependencies.map(({ target }) => table.derived(`dependency:${target}`, (node) => node.container(target) !== undefined));
    return {
      conditions: dependencies.map((dependency) => dependency.flag),
      check(_node, row) {
        const missing = holds.findIndex((holdsHere) => !holdsHere(row));
        return missing < 0 ? PASS : failures[missing]!;
      },
    };
  }
}
