import type { AccessSettings } from './access.js';
import type { WebSettings } from './web.js';

/** PEM file paths for a TLS connection. */
export interface TlsFiles {
  readonly ca?: string;
  readonly cert?: string;
  readonly key?: string;
  /** Verify the peer (server: require client certificates; client: verify the server). */
  readonly verify: boolean;
}

export interface ClusterSettings {
  readonly driver: string;
  /** The discovery URI as given (`nodes://...`, `file://...`, `zk://...`, `h1:p,h2:p`). */
  readonly discovery: string;
  /** `--cluster-opt key=value` pairs. */
  readonly options: Readonly<Record<string, string>>;
  /** `--discovery-opt key=value` pairs. */
  readonly discoveryOptions: Readonly<Record<string, string>>;
  /** Seconds. */
  readonly heartbeat: number;
  /** Seconds. */
  readonly engineRefreshMinInterval: number;
  /** Seconds. */
  readonly engineRefreshMaxInterval: number;
  readonly engineFailureRetry: number;
  /** TLS used when dialling engines. */
  readonly tls?: TlsFiles;
}

export interface SchedulerSettings {
  readonly filters: readonly string[];
  readonly strategy: string;
  readonly strategyOptions: Readonly<Record<string, string | number | boolean>>;
}

export interface ApiSettings {
  /** `-H` values: tcp://host:port or unix:///path. */
  readonly hosts: readonly string[];
  readonly tls?: TlsFiles;
  readonly cors: boolean;
  /** Seconds a stopping manager lets requests in flight finish before it closes their connections. */
  readonly shutdownTimeout: number;
  /**
   * How many healthy nodes `/_swarm/readyz` needs to answer ready (`--ready-min-nodes`, 1 when
   * absent; 0 makes readiness ignore the nodes).
   */
  readonly readyMinNodes?: number;
}

export interface ReplicationSettings {
  readonly enabled: boolean;
  readonly advertise?: string;
  /** Seconds. */
  readonly ttl: number;
}

/** A deployment's resolved configuration (file + flags + defaults), as drivers and plugins see it. */
export interface DeploymentConfig {
  readonly plugins: readonly string[];
  readonly cluster: ClusterSettings;
  readonly scheduler: SchedulerSettings;
  readonly api: ApiSettings;
  readonly replication: ReplicationSettings;
  readonly web: WebSettings;
  readonly logLevel: string;
  /** Access control; absent or empty: everyone who reaches the manager may do anything (Swarm classic's model). */
  readonly access?: AccessSettings;
}
