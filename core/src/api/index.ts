import type { ApiSettings, Cluster, Logger, Scheduler } from '@swarm/plugin-sdk';
import type { ApiContext } from './context.js';
import { Dispatcher } from './dispatcher.js';
import { EngineClients } from '../forwarding/index.js';
import { EventHistory } from './event-history.js';
import { RowTexts } from './row-texts.js';
import { StatusRowTexts } from './status-row-texts.js';
import { DiskUsageCalls } from './disk-usage-calls.js';
import { ExecRegistry } from './exec-registry.js';
import { listen, parseListenAddress, type Listener } from './listeners.js';
import { ApiMetrics, managerRoleName } from './metrics.js';
import { buildRoutes } from './routes.js';
import { warmUp } from './warm-up.js';
import { insecureBindWarning } from './insecure-bind.js';
import type { ManagerRole } from '../replication/manager-role.js';
import type { ApiRouter } from './router.js';
import type { ReadinessProbe } from './readiness.js';
import type { AccessControl } from '../access/access-control.js';
import type { AuditLog } from '../access/audit-log.js';

// The CLI's `manage` and the embedding API start the Docker API server through this function.
export interface ApiServerOptions {
  cluster: Cluster;
  scheduler: Scheduler;
  settings: ApiSettings;
  logger: Logger;
  /** swarm's own version, shown in /version. */
  version: string;
  /** Largest JSON body accepted (default 4 MiB); larger ones get a 413. */
  maxJsonBodyBytes?: number;
  /** Time a client has to send its request headers (default 10 s); slower ones get a 408. */
  headersTimeoutMs?: number;
  /** Events kept for `docker events --since` (default 10000). */
  eventHistorySize?: number;
  /** A replicated manager's role (`--replication`). */
  role?: ManagerRole;
  /** What `/_swarm/readyz` checks (discovery, role, shutting down). */
  readiness?: ReadinessProbe;
  /** Who may do what; without it everyone may do anything. */
  access?: AccessControl;
  /** Callers in this group may vouch for the caller of a request they forward. */
  managersGroup?: string;
  /** `--audit-log`: one line per request, flushed and closed with the server. */
  audit?: AuditLog;
  /**
   * Routes added before the server listens, undone when it closes: the web extensions (web/),
   * which sit above the API front and so are handed in rather than imported here.
   */
  mount?: (router: ApiRouter, api: ApiContext) => Promise<MountedRoutes | undefined>;
}

export interface MountedRoutes {
  close(): Promise<void>;
}

export interface ApiServer {
  /** The addresses it listens on (tcp://host:port with the real port, unix:///path). */
  readonly addresses: readonly string[];
  /**
   * Takes no new connection, ends the endless streams (events, `logs -f`, `stats`, `attach`) at a
   * clean boundary, lets the other requests in flight finish for up to `graceMs`, then closes
   * every connection left.
   */
  close(graceMs?: number): Promise<void>;
}

export { API_VERSION, MIN_API_VERSION } from './handlers/system.js';
export type { ReadinessCheck, ReadinessProbe } from './readiness.js';

export async function startApiServer(options: ApiServerOptions): Promise<ApiServer> {
  const targets = options.settings.hosts.map(parseListenAddress);
  const insecure = insecureBindWarning(targets, options.settings.tls?.verify === true, options.access?.authorizing === true);
  if (insecure) options.logger.warn(insecure);
  const events = new EventHistory(options.cluster, options.eventHistorySize ?? 10_000);
  const engines = new EngineClients();
  const draining = new AbortController();
  const api: ApiContext = {
    cluster: options.cluster,
    scheduler: options.scheduler,
    logger: options.logger,
    version: options.version,
    metrics: new ApiMetrics(options.cluster, () => managerRoleName(options.role)),
    events,
    execs: new ExecRegistry(engines),
    rowTexts: new RowTexts(),
    statusRowTexts: new StatusRowTexts(),
    diskUsage: new DiskUsageCalls(),
    engines,
    limits: { maxJsonBodyBytes: options.maxJsonBodyBytes ?? 4 * 1024 * 1024 },
    role: options.role,
    readiness: options.readiness,
    draining: draining.signal,
    ...(options.access ? { access: options.access } : {}),
    ...(options.managersGroup ? { managersGroup: options.managersGroup } : {}),
    ...(options.audit ? { audit: options.audit } : {}),
  };
  events.listen(() => api.metrics.countEvent());
  const router = buildRoutes();
  let mounted: MountedRoutes | undefined;
  const dispatcher = new Dispatcher({ api, router, options: { cors: options.settings.cors } });
  const limits = { headersTimeoutMs: options.headersTimeoutMs ?? 10_000, keepAliveTimeoutMs: 60_000 };
  const listeners: Listener[] = [];
  try {
    if (options.mount) mounted = await options.mount(router, api);
    for (const target of targets) listeners.push(await listen(target, options.settings.tls, limits, dispatcher));
  } catch (error) {
    await Promise.all(listeners.map((listener) => listener.close()));
    events.close();
    await mounted?.close();
    engines.close();
    api.metrics.close();
    await options.audit?.close();
    throw error;
  }
  options.logger.info(
    { addresses: listeners.map((listener) => listener.address), tls: Boolean(options.settings.tls) },
    'Docker API listening',
  );
  const warm = warmUp(options.cluster, options.logger);
  return {
    addresses: listeners.map((listener) => listener.address),
    close: async (graceMs = 0) => {
      warm.close();
      for (const listener of listeners) listener.stopAccepting();
      dispatcher.startDraining();
      draining.abort();
      // the web extensions end their own live streams as they unmount
      await mounted?.close();
      if (!(await dispatcher.settle(graceMs))) {
        options.logger.warn(
          { inFlight: dispatcher.requestsInFlight, timeoutMs: graceMs },
          'requests still in flight at the shutdown timeout: closing their connections',
        );
      }
      events.close();
      await Promise.all(listeners.map((listener) => listener.close()));
      engines.close();
      api.metrics.close();
      await options.audit?.close();
    },
  };
}
