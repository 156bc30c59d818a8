import type { ApiSettings, Cluster, Logger, Scheduler } from '@swarm/plugin-sdk';

// CONTRACT (owned by the API front work): the CLI's `manage` and the embedding API start the
// Docker API server through this function only.
export interface ApiServerOptions {
  cluster: Cluster;
  scheduler: Scheduler;
  settings: ApiSettings;
  logger: Logger;
  /** swarm's own version, shown in /version. */
  version: string;
}

export interface ApiServer {
  /** The addresses it listens on (tcp://host:port with the real port, unix:///path). */
  readonly addresses: readonly string[];
  close(): Promise<void>;
}

export async function startApiServer(options: ApiServerOptions): Promise<ApiServer> {
  void options;
  throw new Error('the Docker API server is not built yet');
}
