import type { Network, NetworkInventory, Node } from '@swarm/plugin-sdk';
import type { DockerFilters } from './docker-filters.js';

/** The label Docker Compose (v1 and v2) puts on every container, network and volume of a project. */
export const COMPOSE_PROJECT_LABEL = 'com.docker.compose.project';

/**
 * Whether a list of containers, networks or volumes answers with the engines' own names rather
 * than Swarm classic's `node/name`. Compose v2 asks for its project's objects by the project label
 * and uses the listed names as its own: it keeps only the networks whose listed name equals the
 * name it created (`px_front`), so a `node2/px_front` would be skipped and left behind by `docker
 * compose down`, and it links to containers by their listed names (`--link node2/px-db-1:db`
 * names no container on any engine). Every other list keeps classic's display, which scripts and
 * `docker ps` / `docker network ls` readers rely on.
 */
export function listsEngineNames(filters: DockerFilters): boolean {
  return (filters.get('label') ?? []).some((label) => label === COMPOSE_PROJECT_LABEL || label.startsWith(`${COMPOSE_PROJECT_LABEL}=`));
}

/**
 * The node a new local network of a Compose project goes to: where the project's other local
 * networks are, when that node is healthy. A service joining several of the project's networks
 * can only run where all of them are (see network-placement.ts), as on one engine. A project's
 * first network goes where its built images are (Compose names them `<project>-<service>`): on a
 * first `up --build` Compose builds before it creates networks, and an image stays on the node
 * that built it.
 */
export function projectNetworkNode(
  networks: NetworkInventory,
  nodes: readonly Node[],
  labels: Readonly<Record<string, string>> | undefined,
): string | undefined {
  const project = labels?.[COMPOSE_PROJECT_LABEL];
  if (project === undefined) return undefined;
  const siblings = networks
    .list()
    .filter(
      (network: Network) =>
        network.scope === 'local' &&
        (network.summary.Labels as Record<string, string> | null | undefined)?.[COMPOSE_PROJECT_LABEL] === project,
    );
  if (siblings.length > 0) return siblings.find((network) => network.node.isHealthy())?.node.name;
  const prefix = `${project}-`;
  const built = nodes.find(
    (node) => node.isHealthy() && node.images().some((image) => image.repoTags.some((tag) => tag.startsWith(prefix))),
  );
  return built?.name;
}
