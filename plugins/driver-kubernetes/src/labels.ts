/** Labels and annotations the driver puts on the pods it makes (and finds them again by). */
export const PodMarks = {
  /** Label on every pod swarm manages: the selector the driver lists and watches with. */
  managed: 'swarm.io/managed',
  /** Annotation: the docker container ID (64 hex), stable across the pod's re-creations by `docker start`. */
  id: 'swarm.io/container-id',
  /** Annotation: the docker name, exactly as the user gave it. */
  name: 'swarm.io/container-name',
  /** Annotation: the docker create config (JSON): what inspect shows and what `docker start` re-creates. */
  config: 'swarm.io/config',
  /** Annotation: the node swarm's scheduler chose, bound at `docker start`. */
  node: 'swarm.io/node',
  /** Annotation: when docker created the container (RFC 3339), kept across re-creations. */
  created: 'swarm.io/created',
  /** Finalizer: keeps a stopped container's pod (and its exit code) until `docker rm`. */
  keep: 'swarm.io/keep-until-removed',
  /** Annotation: the docker networks the container is on, with the names it answers to on each (JSON). */
  networks: 'swarm.io/networks',
  /** Label prefix: one label per network alias, which that alias's headless Service selects. */
  aliasPrefix: 'alias.swarm.io/',
  /** Label on the Services the driver makes for network aliases. */
  service: 'swarm.io/alias-service',
} as const;
