import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Cluster, Logger, Scheduler } from '@swarm/plugin-sdk';
import type { EngineClients } from '../forwarding/index.js';
import type { EventHistory } from './event-history.js';
import type { ExecRegistry } from './exec-registry.js';
import type { RowTexts } from './row-texts.js';
import type { StatusRowTexts } from './status-row-texts.js';
import type { DiskUsageCalls } from './disk-usage-calls.js';
import type { ApiMetrics } from './metrics.js';
import type { ManagerRole } from '../replication/manager-role.js';
import type { ReadinessProbe } from './readiness.js';
import { CoreErrors } from '../errors.js';
import type { AccessControl } from '../access/access-control.js';
import type { RequestAccess } from '../access/request-access.js';
import type { AuditLog } from '../access/audit-log.js';

export interface ApiLimits {
  /** Largest JSON body accepted (create configs, network/volume requests). */
  maxJsonBodyBytes: number;
}

/** What every handler shares for the life of one API server. */
export interface ApiContext {
  readonly cluster: Cluster;
  readonly scheduler: Scheduler;
  readonly logger: Logger;
  readonly version: string;
  readonly metrics: ApiMetrics;
  readonly events: EventHistory;
  readonly execs: ExecRegistry;
  /** `docker ps` rows as JSON, rebuilt only for containers that changed. */
  readonly rowTexts: RowTexts;
  readonly statusRowTexts: StatusRowTexts;
  readonly diskUsage: DiskUsageCalls;
  /** Connections to the nodes' engines for proxied requests and the front's own calls. */
  readonly engines: EngineClients;
  readonly limits: ApiLimits;
  /** Set on a replicated manager (`--replication`): a replica forwards requests to the primary. */
  readonly role?: ManagerRole;
  /** What `/_swarm/readyz` checks; without it a manager that serves is ready. */
  readonly readiness?: ReadinessProbe;
  /** Fires when the manager stops: streams that never end by themselves end cleanly then. */
  readonly draining: AbortSignal;
  /** Who may do what (`access` in the config); absent: everyone may do anything. */
  readonly access?: AccessControl;
  /** Callers in this group may vouch for the caller of a request they forward (replicas). */
  readonly managersGroup?: string;
  /** `--audit-log`: one line per request. */
  readonly audit?: AuditLog;
}

/** One request as a handler sees it. */
export interface RequestContext {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  /** Route parameters; `*` holds the rest of a wildcard path. */
  readonly params: Readonly<Record<string, string | undefined>>;
  readonly query: URLSearchParams;
  /** `/v1.41` when the client used a versioned path, else empty: kept when forwarding to engines. */
  readonly versionPrefix: string;
  /** Set when the client asked to upgrade the connection (attach, exec start). */
  readonly upgrade?: { readonly socket: Duplex; readonly head: Buffer };
  readonly api: ApiContext;
  /** What access control decided; absent when the deployment has none. */
  readonly access?: RequestAccess;
}

export type RouteHandler = (ctx: RequestContext) => Promise<void>;

export function queryFlag(query: URLSearchParams, name: string): boolean {
  const value = query.get(name);
  return value !== null && value !== '' && value !== '0' && value.toLowerCase() !== 'false';
}

/** A query integer as the engine parses it (`t=10`); anything else is Docker's 400. */
export function queryInteger(value: string): number {
  if (!/^[+-]?\d+$/.test(value)) throw CoreErrors.queryNotInteger({ value });
  return Number(value);
}

export function queryString(query: URLSearchParams): string {
  const text = query.toString();
  return text === '' ? '' : `?${text}`;
}
