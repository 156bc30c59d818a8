import { hostname, release } from 'node:os';
import type { ServerResponse } from 'node:http';
import { queryString, type RouteHandler } from '../context.js';
import { parseFilters } from '../docker-filters.js';
import { mergeAnswers } from '../answers.js';
import { countContainers, scopedDiskUsage, scopedStatusRows, visibleContainers } from '../scoped-views.js';
import { callEveryEngine } from '../fan-out.js';
import { sendJson, sendJsonParts } from '../../http/responses.js';
import { withRoleRows } from '../../replication/status-rows.js';
import { CoreErrors } from '../../errors.js';
import { BASELINE_API_VERSION, OLDEST_API_VERSION, compareApiVersions, servedApiVersions } from '../api-version.js';

/** The Engine API version every engine since dockerd 20.10 speaks, and the oldest clients may ask for (see api-version.ts). */
export const API_VERSION = BASELINE_API_VERSION;
export const MIN_API_VERSION = OLDEST_API_VERSION;

function pingHeaders(res: ServerResponse, apiVersion: string): void {
  res.setHeader('API-Version', apiVersion);
  res.setHeader('OSType', 'linux');
  // Swarm classic is no swarm-mode manager: the header dockerd sends since API 1.42 (23.0); a
  // manager serving 1.41, as 20.10 engines do, answers as they do, without it
  if (compareApiVersions(apiVersion, '1.42') >= 0) res.setHeader('Swarm', 'inactive');
  res.setHeader('Docker-Experimental', 'false');
  res.setHeader('Cache-Control', 'no-cache, no-store, must-revalidate');
  res.setHeader('Pragma', 'no-cache');
}

/** GET|HEAD /_ping: the headers carry what clients negotiate with. */
export const ping: RouteHandler = async (ctx) => {
  pingHeaders(ctx.res, servedApiVersions(ctx.api.cluster.nodes()).max);
  ctx.res.setHeader('Content-Type', 'text/plain; charset=utf-8');
  ctx.res.setHeader('Content-Length', '2');
  ctx.res.writeHead(200);
  ctx.res.end(ctx.req.method === 'HEAD' ? undefined : 'OK');
};

function architecture(): string {
  return process.arch === 'x64' ? 'amd64' : process.arch;
}

/** GET /version */
export const version: RouteHandler = async (ctx) => {
  const swarmVersion = `swarm/${ctx.api.version}`;
  const served = servedApiVersions(ctx.api.cluster.nodes());
  const details = {
    ApiVersion: served.max,
    MinAPIVersion: served.min,
    GitCommit: process.env.SWARM_GIT_COMMIT ?? 'unknown',
    GoVersion: `node ${process.version}`,
    Os: 'linux',
    Arch: architecture(),
    KernelVersion: release(),
  };
  sendJson(ctx.res, 200, {
    Platform: { Name: 'swarm' },
    Components: [{ Name: 'Engine', Version: swarmVersion, Details: { ...details, Experimental: 'false' } }],
    Version: swarmVersion,
    ...details,
    BuildTime: '',
  });
};

/** Stands for SystemStatus while the rest of /info is serialised; the rows' own text replaces it. */
const STATUS_PLACEHOLDER = '\u0000system-status\u0000';

/** GET /info: the cluster's totals with Swarm classic's status rows. */
export const info: RouteHandler = async (ctx) => {
  const whole = ctx.api.cluster.info();
  const access = ctx.access;
  const visible = access?.scoped ? visibleContainers(ctx.api, access) : undefined;
  const counts = visible && countContainers(visible);
  const cluster = counts
    ? {
        ...whole,
        containers: counts.total,
        containersRunning: counts.running,
        containersPaused: counts.paused,
        containersStopped: counts.stopped,
        systemStatus: scopedStatusRows(whole.systemStatus, ctx.api.cluster.nodes(), visible ?? []),
      }
    : whole;
  const text = JSON.stringify({
    ID: '',
    Containers: cluster.containers,
    ContainersRunning: cluster.containersRunning,
    ContainersPaused: cluster.containersPaused,
    ContainersStopped: cluster.containersStopped,
    Images: cluster.images,
    Driver: '',
    DriverStatus: null,
    SystemStatus: STATUS_PLACEHOLDER,
    Plugins: { Volume: ['local'], Network: ['bridge', 'host', 'null'], Authorization: null, Log: ['json-file'] },
    MemoryLimit: true,
    SwapLimit: true,
    KernelMemory: false,
    CpuCfsPeriod: true,
    CpuCfsQuota: true,
    CPUShares: true,
    CPUSet: true,
    PidsLimit: false,
    IPv4Forwarding: true,
    BridgeNfIptables: true,
    BridgeNfIp6tables: true,
    Debug: ctx.api.logger.level === 'debug' || ctx.api.logger.level === 'trace',
    NFd: 0,
    OomKillDisable: true,
    NGoroutines: 0,
    SystemTime: new Date().toISOString(),
    LoggingDriver: '',
    CgroupDriver: '',
    NEventsListener: ctx.api.events.listenerCount,
    KernelVersion: release(),
    OperatingSystem: 'linux',
    OSType: 'linux',
    Architecture: architecture(),
    IndexServerAddress: 'https://index.docker.io/v1/',
    RegistryConfig: null,
    NCPU: cluster.ncpu,
    MemTotal: cluster.memTotal,
    DockerRootDir: '',
    HttpProxy: process.env.HTTP_PROXY ?? '',
    HttpsProxy: process.env.HTTPS_PROXY ?? '',
    NoProxy: process.env.NO_PROXY ?? '',
    Name: hostname(),
    Labels: [],
    ExperimentalBuild: false,
    ServerVersion: `swarm/${ctx.api.version}`,
    Runtimes: {},
    DefaultRuntime: '',
    Swarm: { NodeID: '', NodeAddr: '', LocalNodeState: 'inactive', ControlAvailable: false, Error: '', RemoteManagers: null },
    LiveRestoreEnabled: false,
    Isolation: '',
    InitBinary: '',
    SecurityOptions: [],
    Warnings: null,
  });
  const [before = '', after = ''] = text.split(JSON.stringify(STATUS_PLACEHOLDER));
  const parts = ctx.api.statusRowTexts.encode(withRoleRows(ctx.api.role, cluster.systemStatus));
  parts.unshift(Buffer.from(before));
  parts.push(Buffer.from(after));
  sendJsonParts(ctx.res, 200, parts);
};

/** Swarm-mode routes: this is Swarm classic, so they answer as an engine outside swarm mode does. */
export const notSwarmMode: RouteHandler = async (ctx) => {
  if (ctx.params.id === '') throw CoreErrors.pageNotFound();
  // dockerd reads the filters before it finds it is not in swarm mode: a bad one is a 400 first.
  parseFilters(ctx.query.get('filters'));
  throw CoreErrors.notSwarmMode();
};

/**
 * GET /system/df: every engine's usage, combined; one df at a time (see DiskUsageCalls).
 */
export const diskUsage: RouteHandler = async (ctx) => {
  const path = `${ctx.versionPrefix}/system/df${queryString(ctx.query)}`;
  const answers = await ctx.api.diskUsage.share(path, () => callEveryEngine(ctx.api, 'GET', path));
  const access = ctx.access;
  // scoped per engine: an image's container count is its engine's
  sendJson(ctx.res, 200, mergeAnswers(access?.scoped ? answers.map((answer) => scopedDiskUsage(ctx.api, access, answer)) : answers));
};

/** POST /{containers,images,networks,volumes,build}/prune: pruned on every engine, reports combined. */
export function prune(resource: 'containers' | 'images' | 'networks' | 'volumes' | 'build'): RouteHandler {
  return async (ctx) => {
    const answers = await callEveryEngine(ctx.api, 'POST', `${ctx.versionPrefix}/${resource}/prune${queryString(ctx.query)}`);
    sendJson(ctx.res, 200, mergeAnswers(answers));
  };
}
