import type { Cluster, ClusterEvent, DeploymentConfig, Scheduler } from '@swarm/plugin-sdk';
import type { Deployment } from '../deployment/deployment.js';

export interface SwarmEvents {
  /** A cluster event (container, image, engine_connect, ...). */
  event: (event: ClusterEvent) => void;
  /** The API server accepts connections (the cluster may still be connecting to engines). */
  listening: (info: { addresses: readonly string[] }) => void;
  /** The cluster runs; `addresses` are the API listeners (empty without the API). */
  started: (info: { addresses: readonly string[] }) => void;
  stopped: () => void;
}

export interface StartOptions {
  /** Also serve the Docker API on `api.hosts` (default false for embedding). */
  readonly api?: boolean;
}

/** A deployment as an embedding host sees it. */
export interface Swarm {
  readonly config: DeploymentConfig;
  /** Created on first access (the driver plugin's cluster). */
  readonly cluster: Cluster;
  /** Created on first access (filters, then the strategy). */
  readonly scheduler: Scheduler;
  readonly deployment: Deployment;
  /** The API listener addresses once started with `api: true`. */
  readonly addresses: readonly string[];
  start(options?: StartOptions): Promise<void>;
  stop(): Promise<void>;
  on<K extends keyof SwarmEvents>(event: K, listener: SwarmEvents[K]): () => void;
}
