/** What `swarm sandbox` prints on stdout once the manager listens: where it is and what to try. */
export function sandboxBanner(options: {
  addresses: readonly string[];
  engines: readonly { name: string; labels: readonly string[] }[];
}): string {
  const host = options.addresses[0] ?? '';
  const first = options.engines[0];
  const last = options.engines[options.engines.length - 1];
  const labels = [...new Set(options.engines.flatMap((engine) => engine.labels))];
  const constraint = labels[0] === undefined ? '' : ` -e constraint:${labels[0].replace('=', '==')}`;
  return [
    `swarm sandbox: ${options.engines.length} hollow engines (${first?.name}..${last?.name}${labels.length ? `, labels ${labels.join(' ')}` : ''}) behind a manager on ${options.addresses.join(', ')}`,
    'Point docker at it:',
    `  export DOCKER_HOST=${host}`,
    '  docker info',
    `  docker run -d${constraint} busybox true`,
    '  docker ps',
    'Nothing runs: the engines live in this process and keep their containers in memory. Ctrl-C stops everything.',
    '',
  ].join('\n');
}
