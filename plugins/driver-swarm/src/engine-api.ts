import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import type { EngineEndpoint } from '@swarm/plugin-sdk';
import type {
  AuthConfig,
  ContainerConfig,
  ContainerInspect,
  ContainerSummary,
  ImageRemoval,
  ImageSummary,
  JsonObject,
  NetworkSummary,
  VolumeSummary,
} from '@swarm/plugin-sdk/docker';
import { EngineClient, isEngineUnreachable, type CallSlots, type EngineCall } from '@swarm/plugin-sdk/helpers';
import { parallelReads, type ConnectionPlan } from './connection-budget.js';
import { isConnectionCut, isEngineRefusal } from './engine-faults.js';

/** The part of `GET /info` swarm reads. */
export interface EngineInfo extends JsonObject {
  ID: string;
  Name: string;
  NCPU: number;
  MemTotal: number;
  Driver?: string;
  KernelVersion?: string;
  OperatingSystem?: string;
  OSType?: string;
  Labels?: string[] | null;
}

export interface EngineVersion extends JsonObject {
  Version: string;
  ApiVersion?: string;
  MinAPIVersion?: string;
}

/**
 * The newest Engine API whose answers this driver reads (dockerd 26.1's): its own calls to a newer
 * engine ask for this one, as the Docker SDK's version negotiation does, so a field a later API
 * drops or reshapes never reaches the cluster's state.
 */
export const NEWEST_ENGINE_API = '1.45';

/** `1.9` < `1.41` < `1.45`: Engine API versions compared as numbers, part by part. */
export function compareApiVersions(a: string, b: string): number {
  const [aMajor = 0, aMinor = 0] = a.split('.').map(Number);
  const [bMajor = 0, bMinor = 0] = b.split('.').map(Number);
  return aMajor - bMajor || aMinor - bMinor;
}

/** The version to ask an engine for: its own newest, up to ours; none (unversioned paths) when it did not say. */
export function negotiatedApiVersion(version: EngineVersion): string | undefined {
  const offered = version.ApiVersion;
  if (typeof offered !== 'string' || !/^\d+\.\d+$/.test(offered)) return undefined;
  return compareApiVersions(offered, NEWEST_ENGINE_API) < 0 ? offered : NEWEST_ENGINE_API;
}

type Call = Omit<EngineCall, 'path'>;

/** Told of every call's fate, so the engine's monitor hears of a dead engine from the first failed call. */
export interface EngineCallObserver {
  /** The connection was refused: the engine is down. */
  refused(error: unknown): void;
  /** The connection was cut under a call: the engine may be going down. */
  cut(error: unknown): void;
}

export interface EngineApiOptions {
  readonly endpoint: EngineEndpoint;
  /** Bound on each call. */
  readonly timeoutMs: number;
  /** The cluster's bound on calls in flight over all engines (liveness checks are not held back by it). */
  readonly slots?: CallSlots;
}

/** Typed calls to one Docker engine; every call except streams is bounded by `timeoutMs`. */
export class EngineApi {
  private readonly client: EngineClient;
  /** Liveness checks on a connection of their own, never queued behind busy calls. */
  private readonly liveness: EngineClient;
  private observer: EngineCallObserver | undefined;
  /** When the engine last answered anything (ms since the epoch). */
  lastAnswerAt = 0;
  /** `/v1.45` once negotiated: the calls below carry it, so every engine answers in the API we read. */
  private versionPrefix = '';

  readonly endpoint: EngineEndpoint;

  constructor({ endpoint, timeoutMs, slots }: EngineApiOptions) {
    this.endpoint = endpoint;
    this.client = new EngineClient(endpoint, { timeoutMs, ...(slots === undefined ? {} : { slots }) });
    this.liveness = new EngineClient(endpoint, { timeoutMs, maxSockets: 1 });
    this.pinged = this.liveness;
  }

  observe(observer: EngineCallObserver): void {
    this.observer = observer;
  }

  private watched<T>(call: Promise<T>): Promise<T> {
    return call.then(
      (value) => {
        this.lastAnswerAt = Date.now();
        return value;
      },
      (error: unknown) => {
        this.heard(error);
        throw error;
      },
    );
  }

  /** A call's failure, told to the observer; an error answer is still an answer. */
  private heard(error: unknown): void {
    if (isEngineRefusal(error)) this.observer?.refused(error);
    else if (isConnectionCut(error)) this.observer?.cut(error);
    else if (!isEngineUnreachable(error)) this.lastAnswerAt = Date.now();
  }

  /** Pins later calls to the version `negotiatedApiVersion` picks from the engine's `/version`. */
  negotiate(version: EngineVersion): void {
    const picked = negotiatedApiVersion(version);
    this.versionPrefix = picked === undefined ? '' : `/v${picked}`;
  }

  private json<T>(path: string, call: Call = {}): Promise<T> {
    return this.watched(this.client.json<T>({ ...call, path: this.versionPrefix + path }));
  }

  private stream(path: string, call: Call): Promise<IncomingMessage> {
    return this.watched(this.client.stream({ ...call, path: this.versionPrefix + path }));
  }

  /**
   * `GET /version` (small, JSON) within `timeoutMs`: whether the engine answers at all. On the
   * liveness connection when the plan keeps one; otherwise on the calls' kept-alive connection
   * (outside the cluster's slots), which an idle engine always has free, rather than on a new
   * connection per check.
   */
  ping = (timeoutMs: number) => this.watched(this.pinged.json<EngineVersion>({ path: '/version', timeoutMs, bypassSlots: true }));

  /** Close the engine's kept-alive connections (it left the cluster). */
  close = () => {
    this.client.close();
    this.liveness.close();
  };
  /** Reads a full load of this engine makes at once (see connection-budget.ts). */
  parallelReads = 8;
  /** The client liveness checks go over: the calls' one when the plan keeps it idle and no liveness connection. */
  private pinged: EngineClient;

  /** The idle connections this engine may keep (calls, liveness checks), and so its loads' parallel reads. */
  useConnections = (plan: ConnectionPlan) => {
    this.client.keepIdle(plan.callIdle);
    this.liveness.keepIdle(plan.livenessIdle);
    this.pinged = plan.livenessIdle === 0 && plan.callIdle > 0 ? this.client : this.liveness;
    this.parallelReads = parallelReads(plan);
  };

  info = () => this.json<EngineInfo>('/info');
  /** `/info` on a new connection: proves the engine accepts connections again. */
  probe = () => this.json<EngineInfo>('/info', { separate: true });
  version = () => this.json<EngineVersion>('/version');

  listContainers = (id?: string) =>
    this.json<ContainerSummary[]>('/containers/json', {
      query: { all: 1, size: 0, filters: id ? JSON.stringify({ id: [id] }) : undefined },
    });
  inspectContainer = (id: string) => this.json<ContainerInspect>(`/containers/${encodeURIComponent(id)}/json`);
  /** Inspects of several containers pipelined on one connection (see `EngineClient.readEach`), settled one by one. */
  inspectContainers = async (ids: readonly string[]): Promise<Array<PromiseSettledResult<ContainerInspect>>> => {
    const results = await this.client.readEach<ContainerInspect>(
      ids.map((id) => ({ path: `${this.versionPrefix}/containers/${encodeURIComponent(id)}/json` })),
    );
    if (results.some((result) => result.status === 'fulfilled')) this.lastAnswerAt = Date.now();
    // the requests a dropped connection left unanswered share one failure: told once
    const failures = new Set(results.flatMap((result) => (result.status === 'rejected' ? [result.reason as unknown] : [])));
    for (const failure of failures) this.heard(failure);
    return results;
  };
  createContainer = (config: ContainerConfig, name: string | undefined, auth?: AuthConfig) =>
    this.json<{ Id: string }>('/containers/create', { method: 'POST', query: { name }, body: config, auth });
  startContainer = (id: string) => this.json<void>(`/containers/${encodeURIComponent(id)}/start`, { method: 'POST' });
  removeContainer = (id: string, force: boolean, volumes: boolean) =>
    this.json<void>(`/containers/${encodeURIComponent(id)}`, { method: 'DELETE', query: { force, v: volumes } });
  renameContainer = (id: string, name: string) =>
    this.json<void>(`/containers/${encodeURIComponent(id)}/rename`, { method: 'POST', query: { name } });

  listImages = () => this.json<ImageSummary[]>('/images/json', { query: { all: 0 } });
  tagImage = (name: string, repo: string, tag: string, force: boolean) =>
    this.json<void>(`/images/${encodeURIComponent(name)}/tag`, {
      method: 'POST',
      query: { repo, tag: tag || undefined, force: force || undefined },
    });
  removeImage = (name: string, force: boolean) =>
    this.json<ImageRemoval[]>(`/images/${encodeURIComponent(name)}`, { method: 'DELETE', query: { force } });
  /** `POST /images/create`: pull (`fromImage`) or import (`fromSrc`); answers a progress stream. */
  createImage = (query: EngineCall['query'], auth: AuthConfig | undefined, upload?: Readable | Buffer, signal?: AbortSignal) =>
    this.stream('/images/create', { method: 'POST', query, auth, upload, signal });
  loadImage = (archive: Buffer, signal?: AbortSignal) => this.stream('/images/load', { method: 'POST', upload: archive, signal });

  listVolumes = () => this.json<{ Volumes: VolumeSummary[] | null }>('/volumes');
  inspectVolume = (name: string) => this.json<VolumeSummary>(`/volumes/${encodeURIComponent(name)}`);
  createVolume = (request: JsonObject) => this.json<VolumeSummary>('/volumes/create', { method: 'POST', body: request });
  removeVolume = (name: string, force: boolean) =>
    this.json<void>(`/volumes/${encodeURIComponent(name)}`, { method: 'DELETE', query: { force: force || undefined } });

  listNetworks = () => this.json<NetworkSummary[]>('/networks');
  inspectNetwork = (id: string) => this.json<NetworkSummary>(`/networks/${encodeURIComponent(id)}`);
  createNetwork = (request: JsonObject) => this.json<{ Id: string }>('/networks/create', { method: 'POST', body: request });
  removeNetwork = (id: string) => this.json<void>(`/networks/${encodeURIComponent(id)}`, { method: 'DELETE' });

  /** The live event stream; its headers are bounded by the timeout, its body not. */
  events = () => this.stream('/events', {});
}
