/** A value in an options map (`cluster.options`, `scheduler.strategyOptions`). */
export type OptionValue = string | number | boolean;

/** A duration: Go syntax (`30s`, `1m`, `500ms`) or a number of seconds. */
export type DurationInput = string | number;

/** A plugin entry's settings: the limit on its calls, and whether its filters and strategies run in a worker thread. */
export interface PluginEntryInput {
  timeout?: DurationInput;
  isolate?: boolean;
}

/** An access entry's call settings: its time limit, and (admission only) whether a failure lets the request through. */
export interface AccessCallInput {
  timeout?: DurationInput;
  failurePolicy?: 'fail' | 'ignore';
}

export interface TlsInput {
  ca?: string;
  cert?: string;
  key?: string;
  verify?: boolean;
}

/**
 * The shape of a config file (and of the object `createSwarm` takes). Every key is optional:
 * what is missing comes from the command line or Swarm classic's defaults.
 */
export interface SwarmConfigInput {
  /** Plugin packages: a name, or `[name, { timeout, isolate }]`. */
  plugins?: Array<string | [string, PluginEntryInput]>;
  /** The event-loop watchdog: `limit` (default 10s; 0 turns it off) before a blocked manager ends itself. */
  watchdog?: { limit?: DurationInput };
  cluster?: {
    driver?: string;
    discovery?: string;
    options?: Record<string, OptionValue>;
    discoveryOptions?: Record<string, string>;
    heartbeat?: DurationInput;
    engineRefreshMinInterval?: DurationInput;
    engineRefreshMaxInterval?: DurationInput;
    engineFailureRetry?: number;
  };
  scheduler?: {
    filters?: string[];
    strategy?: string;
    strategyOptions?: Record<string, OptionValue>;
  };
  api?: {
    /** One address or several: `tcp://127.0.0.1:2375`, `unix:///run/swarm.sock`. */
    hosts?: string[];
    host?: string | string[];
    cors?: boolean;
    /** How long a stopping manager lets requests in flight finish (`10s` by default). */
    shutdownTimeout?: DurationInput;
    /** Healthy nodes `/_swarm/readyz` needs (1 by default; 0: readiness ignores the nodes). */
    readyMinNodes?: number;
  };
  /** TLS for the API listener and for dialling engines, as Swarm classic's --tls* flags. */
  tls?: TlsInput;
  replication?: {
    enabled?: boolean;
    advertise?: string;
    ttl?: DurationInput;
  };
  /** The built-in web view at `/swarm/ui/` (`--ui`): `true`, or its settings (`{ readOnly: false }`). Off by default. */
  ui?: boolean | WebExtensionInput;
  /** Web extensions to serve under `/swarm/<name>/`, by name: `true`, `false`, or the extension's settings. */
  web?: Record<string, boolean | WebExtensionInput>;
  logLevel?: string;
  /** Who may do what: access plugins and the audit log. */
  access?: AccessInput;
}

/** An access plugin by name, or `[name, options]`, or `[name, options, { timeout, failurePolicy }]`. */
export type AccessEntryInput = string | [string, Record<string, unknown>] | [string, Record<string, unknown>, AccessCallInput];

export interface AccessInput {
  /** Authenticators in order; `['tls']` by default (plus `token-file` when `tokenFile` is set). */
  authn?: AccessEntryInput[];
  authz?: AccessEntryInput[];
  admission?: AccessEntryInput[];
  /** Docker engine AuthZ plugins by name or URL (`--authorization-plugin`), asked first, in order. */
  authorizationPlugins?: string[];
  /** A kube-apiserver style token file (`--token-auth-file`): adds the `token-file` authenticator. */
  tokenFile?: string;
  managersGroup?: string;
  audit?: { path?: string; maxSize?: string | number; maxBackups?: number };
}

/** One web extension's settings, handed to it as they are. */
export type WebExtensionInput = Record<string, OptionValue>;
