import type { IncomingMessage } from 'node:http';
import { ErrorCodes, isSwarmError, type Logger } from '@swarm/plugin-sdk';
import type { ContainerConfig, ContainerSummary, DockerEvent } from '@swarm/plugin-sdk/docker';
import { isEngineUnreachable, readJsonLines } from '@swarm/plugin-sdk/helpers';
import { CoalescingRunner } from './coalescing-runner.js';
import type { LoadGate } from './load-gate.js';
import type { EngineApi } from './engine-api.js';
import { rowFromInspect } from './container-row.js';
import { inspectedContainer, type EngineContainer } from './engine-container.js';
import { SwarmErrors } from './errors.js';
import type { EngineNode } from './engine-node.js';
import { alignedDelayMs, livenessDelayMs, livenessIntervalMs, refreshDelayMs } from './monitor-pacing.js';

export interface MonitorTimings {
  refreshMinMs: number;
  refreshMaxMs: number;
  /** The longest wait between two tries of an engine not validated yet (SwarmClusterOptions). */
  pendingRetryMaxMs: number;
  failureRetry: number;
  livenessIntervalMs: number;
  livenessTimeoutMs: number;
}

export type EngineLifecycleAction = 'engine_connect' | 'engine_disconnect' | 'engine_reconnect';

export interface MonitorHooks {
  lifecycle(node: EngineNode, action: EngineLifecycleAction): void;
  event(node: EngineNode, event: DockerEvent): void;
  /** The address of another node already using this engine ID, if any. */
  duplicateOf(node: EngineNode): string | undefined;
  /** Shared by all engines: full loads wait here for a slot. */
  loadGate: LoadGate;
  /** Engines in the cluster (spaces liveness checks out). */
  engineCount(): number;
}

/** Container actions that change nothing swarm keeps (Swarm classic's list). */
const NO_REFRESH = new Set([
  'top',
  'resize',
  'export',
  'exec_create',
  'exec_start',
  'exec_die',
  'exec_detach',
  'attach',
  'detach',
  'extract-to-dir',
  'copy',
  'archive-path',
]);

const EXPECTATION_MS = 5000;

/**
 * Whether a `docker ps` row changed in what swarm indexes, counts or schedules on (unchanged rows
 * are not re-indexed). STATUS alone moves with time ("Up 2 minutes"): it is taken in place.
 */
function sameRow(before: ContainerSummary, after: ContainerSummary): boolean {
  return before.State === after.State && before.Names.join() === after.Names.join();
}

function onlyNotFound(error: unknown): undefined {
  if (isSwarmError(error, ErrorCodes.NOT_FOUND)) return undefined;
  throw error;
}

function hasLinks(config: ContainerConfig): boolean {
  return (config.HostConfig?.Links?.length ?? 0) > 0;
}

/** Inspects pipelined on one connection: enough to spare most of the per-request work, few enough that a large engine's load keeps several connections busy. */
const READS_PER_PIPELINE = 32;

/** `items` split into at most `connections` pipelines of about `READS_PER_PIPELINE` each. */
function pipelines<T>(items: readonly T[], connections: number): T[][] {
  const count = Math.max(1, Math.min(connections, Math.ceil(items.length / READS_PER_PIPELINE)));
  const size = Math.ceil(items.length / count);
  const batches: T[][] = [];
  for (let start = 0; start < items.length; start += size) batches.push(items.slice(start, start + size));
  return batches;
}

/** `task` for every item, at most `limit` at once; fails with the first failure (and starts no more). */
async function inParallel<T>(items: readonly T[], limit: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failed = false;
  const worker = async (): Promise<void> => {
    while (!failed && next < items.length) {
      const item = items[next++]!;
      try {
        await task(item);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, limit), items.length) }, worker));
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export interface EngineMonitorDeps {
  readonly node: EngineNode;
  readonly api: EngineApi;
  readonly timings: MonitorTimings;
  readonly hooks: MonitorHooks;
  readonly logger: Logger;
}

/**
 * Keeps one EngineNode in step with its engine: connects (info, version, full load, event
 * stream), refreshes between the min and max intervals, counts connection failures to mark the
 * node Unhealthy and back, and applies engine events one container at a time.
 */
export class EngineMonitor {
  readonly node: EngineNode;
  readonly api: EngineApi;
  private readonly timings: MonitorTimings;
  private readonly hooks: MonitorHooks;
  private readonly logger: Logger;

  private timer: NodeJS.Timeout | undefined;
  private livenessTimer: NodeJS.Timeout | undefined;
  private checking = false;
  private eventTimer: NodeJS.Timeout | undefined;
  private events: IncomingMessage | undefined;
  private stopped = false;
  private connected = false;
  /** Set the moment this engine ID is checked unique, so a parallel connect of a clone sees it. */
  private ownsId = false;
  private pendingAttempts = 0;
  private readonly refresher = new CoalescingRunner();
  /** Container events swarm caused itself and already refreshes for (see startContainer). */
  private readonly expected = new Map<string, { action: string; done: Promise<unknown> }>();
  /** Resolves once the first connection attempt finished (either way). */
  readonly firstAttempt: Promise<void>;

  /** Whether the log already said this address is a manager. */
  private saidIsManager = false;

  constructor({ node, api, timings, hooks, logger }: EngineMonitorDeps) {
    this.node = node;
    this.api = api;
    this.timings = timings;
    this.hooks = hooks;
    this.logger = logger;
    api.observe({
      refused: (error) => this.engineDown(`connection refused: ${errorText(error)}`),
      cut: () => void this.checkLiveness(true),
    });
    this.firstAttempt = this.connect();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    clearTimeout(this.livenessTimer);
    clearTimeout(this.eventTimer);
    this.closeEvents();
    this.api.close();
  }

  private schedule(delayMs: number, task: () => Promise<void>): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void task(), delayMs);
  }

  private refreshDelay(): number {
    return alignedDelayMs(refreshDelayMs(this.timings, this.hooks.engineCount(), Math.random()), Date.now());
  }

  // --- connection ---------------------------------------------------------------------------

  private async connect(): Promise<void> {
    try {
      const [info, version] = await Promise.all([this.api.info(), this.api.version()]);
      if (typeof info?.ID !== 'string' || typeof version?.Version !== 'string') {
        throw SwarmErrors.notAnEngine({ addr: this.node.addr });
      }
      // A swarm manager answers /info and /version too (Swarm classic's and ours say `swarm/VERSION`):
      // adopting one would forward containers to it, and to itself when it is this manager.
      if (typeof info.ServerVersion === 'string' && info.ServerVersion.startsWith('swarm/')) {
        throw SwarmErrors.nodeIsManager({ addr: this.node.addr, serverVersion: info.ServerVersion });
      }
      if (this.stopped) return;
      this.api.negotiate(version);
      this.node.applySpecs(info, version);
      const duplicate = this.hooks.duplicateOf(this.node);
      if (duplicate !== undefined) {
        throw SwarmErrors.duplicateEngineId({ engineId: info.ID, addr: this.node.addr, other: duplicate });
      }
      this.ownsId = true;
      // events first: a container made while the lists are read then arrives as an event (the other
      // order missed one made between the list and the subscription until the next full refresh)
      await this.subscribe();
      if (this.stopped) return;
      await this.loadEverything();
      if (this.stopped) return;
      this.connected = true;
      this.node.failureCount = 0;
      this.node.setError(undefined);
      this.node.setStatus('healthy');
      this.node.touch();
      this.hooks.lifecycle(this.node, 'engine_connect');
      // a stream that ended while the lists were read (the node was not healthy yet to reopen it)
      if (!this.events) this.openEvents(true);
      this.schedule(this.refreshDelay(), () => this.refresh());
      if (!this.livenessTimer) this.scheduleLiveness();
    } catch (error) {
      this.ownsId = false;
      this.closeEvents();
      if (this.stopped) return;
      this.node.setError(this.describeConnectError(error));
      this.node.touch();
      this.pendingAttempts++;
      // Said once at warn level: retrying will not make a manager an engine, and the operator must act.
      if (!this.saidIsManager && SwarmErrors.nodeIsManager.is(error)) {
        this.saidIsManager = true;
        this.logger.warn({ addr: this.node.addr, err: errorText(error) }, 'refused a node');
      }
      // a new primary may hold engines that were down when it started: it must not wait a minute for them
      const backoff = Math.min(this.timings.refreshMinMs * 2 ** (this.pendingAttempts - 1), this.timings.pendingRetryMaxMs);
      this.logger.debug({ addr: this.node.addr, err: errorText(error) }, 'engine not validated yet, will retry');
      this.schedule(backoff, () => this.connect());
    }
  }

  private describeConnectError(error: unknown): string {
    if (isSwarmError(error) && !isEngineUnreachable(error) && typeof error.details?.['status'] === 'number') {
      return SwarmErrors.notAnEngineStatus({ addr: this.node.addr, status: error.details['status'], reason: error.message }).message;
    }
    return errorText(error);
  }

  private loadEverything(): Promise<void> {
    return this.hooks.loadGate.run(() => this.readLists(true));
  }

  /**
   * The engine's containers, images, volumes and networks, as many lists at once as the engine
   * keeps idle connections: one after the other on one kept-alive connection in a large cluster,
   * instead of three new connections per refresh.
   */
  private readLists(fullContainers: boolean): Promise<void> {
    const lists = [
      () => this.refreshContainers(fullContainers),
      () => this.refreshImages(),
      () => this.refreshVolumes(),
      () => this.refreshNetworks(),
    ];
    return inParallel(lists, this.api.parallelReads, (read) => read());
  }

  // --- periodic refresh and health ------------------------------------------------------------

  private async refresh(): Promise<void> {
    try {
      if (!this.node.isHealthy()) {
        const info = await this.api.probe();
        this.node.applySpecs(info, { Version: this.node.version });
      }
      const reconnecting = !this.node.isHealthy();
      if (reconnecting) this.node.acceptMovedAway();
      if (reconnecting && !this.events) await this.subscribe();
      await this.readLists(reconnecting);
      this.succeeded();
    } catch (error) {
      this.failed(error);
    }
    this.schedule(this.refreshDelay(), () => this.refresh());
  }

  private succeeded(): void {
    this.node.setError(undefined);
    this.node.failureCount = 0;
    this.node.touch();
    if (this.node.status() === 'unhealthy') {
      this.logger.info({ addr: this.node.addr, name: this.node.name }, 'engine came back to life');
      this.node.setStatus('healthy');
      this.hooks.lifecycle(this.node, 'engine_reconnect');
      if (!this.events) this.openEvents();
    }
  }

  private failed(error: unknown): void {
    if (!isEngineUnreachable(error)) {
      this.logger.warn({ addr: this.node.addr, err: errorText(error) }, 'engine refresh failed');
      return;
    }
    this.node.failureCount++;
    this.node.setError(errorText(error));
    if (this.node.isHealthy() && this.node.failureCount >= this.timings.failureRetry) {
      this.logger.info({ addr: this.node.addr, name: this.node.name, failures: this.node.failureCount }, 'engine marked unhealthy');
      this.node.setStatus('unhealthy');
      this.hooks.lifecycle(this.node, 'engine_disconnect');
    }
  }

  // --- liveness: a dead or hung engine is noticed in seconds, not at the next refresh -------------

  /**
   * Marks the node Unhealthy at once (a refused connection, a liveness check unanswered): the
   * scheduler stops choosing it before the next refresh would have noticed.
   */
  engineDown(reason: string): void {
    if (this.stopped || !this.connected || !this.node.isHealthy()) return;
    this.logger.info({ addr: this.node.addr, name: this.node.name, reason }, 'engine marked unhealthy');
    this.node.failureCount = Math.max(this.node.failureCount, this.timings.failureRetry);
    this.node.setError(reason);
    this.node.setStatus('unhealthy');
    // a hung engine's stream never ends by itself; the refresh that finds it back reopens one
    this.closeEvents();
    this.hooks.lifecycle(this.node, 'engine_disconnect');
  }

  private scheduleLiveness(): void {
    if (this.stopped) return;
    clearTimeout(this.livenessTimer);
    const delay = alignedDelayMs(livenessDelayMs(this.timings, this.hooks.engineCount(), Math.random()), Date.now());
    this.livenessTimer = setTimeout(() => void this.checkLiveness(false), delay);
  }

  /**
   * Asks the engine whether it is alive, unless it answered something lately (`force`: ask now).
   * No answer within the liveness timeout marks a healthy node down; an answer from a node marked
   * down refreshes it at once, which brings it back.
   */
  private async checkLiveness(force: boolean): Promise<void> {
    if (this.stopped || this.checking) return;
    const interval = livenessIntervalMs(this.timings, this.hooks.engineCount());
    if (!force && this.node.isHealthy() && Date.now() - this.api.lastAnswerAt < interval / 2) {
      this.scheduleLiveness();
      return;
    }
    this.checking = true;
    try {
      await this.api.ping(this.timings.livenessTimeoutMs);
      if (!this.node.isHealthy() && this.connected) this.schedule(0, () => this.refresh());
    } catch (error) {
      this.engineDown(`no answer to a liveness check within ${this.timings.livenessTimeoutMs / 1000} s: ${errorText(error)}`);
    } finally {
      this.checking = false;
      this.scheduleLiveness();
    }
  }

  // --- state loading ----------------------------------------------------------------------------

  /** All containers; `full` re-inspects every one (first load, reconnect), otherwise only new ones. */
  private async refreshContainers(full: boolean): Promise<void> {
    const summaries = await this.api.listContainers();
    const seen = new Set<string>();
    const toRead: ContainerSummary[] = [];
    for (const summary of summaries) {
      seen.add(summary.Id);
      const known = this.node.knownContainer(summary.Id);
      if (!known || full) toRead.push(summary);
      else if (sameRow(known.summary, summary)) known.takeStatus(summary.Status);
      else this.node.upsertContainer(known.withRow(summary));
    }
    // a container removed meanwhile is skipped; an engine not answering fails the whole load
    await inParallel(pipelines(toRead, this.api.parallelReads), this.api.parallelReads, async (batch) => {
      const inspects = await this.api.inspectContainers(batch.map((summary) => summary.Id));
      batch.forEach((summary, index) => {
        const result = inspects[index]!;
        const inspect = result.status === 'fulfilled' ? result.value : onlyNotFound(result.reason);
        if (inspect) this.node.upsertContainer(inspectedContainer(this.node, summary, inspect, this.node.cpus));
      });
    });
    for (const id of [...this.node.containerIds()]) if (!seen.has(id)) this.node.deleteContainer(id);
  }

  /**
   * Re-read one container with a single inspect; gone from the engine means gone from swarm.
   * `join` waits for a read already running instead of reading again: right when that read
   * started after the change the caller knows of (the container's creation).
   */
  async refreshContainer(id: string, mode: 'rerun' | 'join' = 'rerun'): Promise<EngineContainer | undefined> {
    const key = `container:${id}`;
    const read = () => this.readContainer(id);
    await (mode === 'join' ? this.refresher.join(key, read) : this.refresher.run(key, read));
    return this.node.knownContainer(id);
  }

  private async readContainer(id: string): Promise<void> {
    // only the engine saying so makes a container gone: an engine going down fails calls too
    const inspect = await this.api.inspectContainer(id).catch(onlyNotFound);
    if (!inspect) {
      this.node.deleteContainer(id);
      return;
    }
    const known = this.node.knownContainer(inspect.Id);
    const container = inspectedContainer(this.node, rowFromInspect(inspect, known?.summary), inspect, this.node.cpus);
    this.node.upsertContainer(container);
    if (!known && hasLinks(container.config)) this.refreshLinkNames();
  }

  /** Links add names (`/web/db`) to their targets' rows; only the engine's list tells them. */
  private refreshLinkNames(): void {
    void this.refresher.run('containers', () => this.refreshContainers(false)).catch(() => undefined);
  }

  refreshImages(): Promise<void> {
    return this.refresher.run('images', async () => this.node.setImages(await this.api.listImages()));
  }

  refreshVolumes(): Promise<void> {
    return this.refresher.run('volumes', async () => this.node.setVolumes((await this.api.listVolumes()).Volumes ?? []));
  }

  refreshNetworks(): Promise<void> {
    return this.refresher.run('networks', async () => this.node.setNetworks(await this.api.listNetworks()));
  }

  private refreshVolume(name: string): Promise<void> {
    return this.refresher.run(`volume:${name}`, async () => {
      this.node.upsertVolume(await this.api.inspectVolume(name).catch(() => undefined), name);
    });
  }

  private refreshNetwork(id: string): Promise<void> {
    return this.refresher.run(`network:${id}`, async () => {
      this.node.upsertNetwork(await this.api.inspectNetwork(id).catch(() => undefined), id);
    });
  }

  // --- events -----------------------------------------------------------------------------------

  /**
   * Subscribes to the engine's events; settles once the engine answered the request (from then on
   * every change reaches the stream), rejects when it could not. No `since`: replayed events would
   * reach clients twice; a list read after the subscription catches up instead.
   */
  private async subscribe(): Promise<void> {
    if (this.stopped) return;
    const response = await this.api.events();
    if (this.stopped) {
      response.destroy();
      return;
    }
    this.closeEvents();
    this.events = response;
    // a torn or foreign line is skipped: the periodic refresh catches up
    readJsonLines(response, {
      value: (event) => this.onEvent(event as DockerEvent),
      end: () => {
        if (this.events === response) this.eventsEnded();
      },
    });
  }

  private closeEvents(): void {
    const events = this.events;
    this.events = undefined;
    this.expected.clear();
    events?.destroy();
  }

  /** Subscribes in the background; then, when `catchUp`, reads the containers anew. */
  private openEvents(catchUp = false): void {
    this.subscribe().then(
      () => (catchUp ? void this.refreshContainers(true).catch(() => undefined) : undefined),
      (error: unknown) => {
        this.failed(error);
        this.eventsEnded();
      },
    );
  }

  private eventsEnded(): void {
    this.events = undefined;
    this.expected.clear();
    if (this.stopped) return;
    // a stream ends when its engine stops: ask now rather than at the next check
    if (this.node.isHealthy()) void this.checkLiveness(true);
    // reopen soon; while the engine is down the refresh loop marks it unhealthy and reopens on return
    clearTimeout(this.eventTimer);
    this.eventTimer = setTimeout(
      () => {
        // the containers are read again once the new stream is up, so nothing falls between the two
        if (this.node.isHealthy() && !this.events) this.openEvents(true);
      },
      Math.min(1000, this.timings.refreshMinMs),
    );
  }

  private onEvent(event: DockerEvent): void {
    const actor = event['Actor'] as { ID?: string } | undefined;
    const subject = actor?.ID ?? event.id ?? '';
    const action = (event.Action ?? event.status ?? '').split(':')[0] ?? '';
    const refreshed = this.applyEvent(event.Type ?? 'container', action, subject);
    // classic emits after its refresh, so a client reacting to the event sees the new state
    refreshed.catch(() => undefined).finally(() => this.hooks.event(this.node, event));
  }

  /**
   * Start a container and re-read it once, in the background: when the container exits at once,
   * dockerd answers an inspect only after tearing the exit down (tens of ms, it holds the
   * container's lock), and `docker run -d` must not wait for that. Until the read lands the row
   * says running, as dockerd's own list does then. The engine's `start` event waits for this
   * read instead of reading again (clients still see the event after the new state).
   */
  async startContainer(id: string): Promise<void> {
    const started = this.api.startContainer(id);
    const done = started.then(() => this.refreshContainer(id));
    const expectation = { action: 'start', done: done.catch(() => undefined) };
    this.expected.set(id, expectation);
    const forget = () => {
      if (this.expected.get(id) === expectation) this.expected.delete(id);
    };
    try {
      await started;
    } catch (error) {
      forget(); // no start, no event
      throw error;
    }
    this.showRunning(id);
    // our own event arrives within milliseconds; a later one is somebody else's
    setTimeout(forget, EXPECTATION_MS).unref();
  }

  private showRunning(id: string): void {
    const known = this.node.knownContainer(id);
    if (known && known.state !== 'running')
      this.node.upsertContainer(known.withRow({ ...known.summary, State: 'running', Status: 'Up Less than a second' }));
  }

  /** The refresh an event of ours already has, if this event is the one expected. */
  private expectedRefresh(action: string, subject: string): Promise<unknown> | undefined {
    const expectation = this.expected.get(subject);
    if (!expectation) return undefined;
    // any event of that container ends the expectation: a later `start` needs a stop first
    this.expected.delete(subject);
    return expectation.action === action ? expectation.done : undefined;
  }

  private applyEvent(type: string, action: string, subject: string): Promise<unknown> {
    switch (type) {
      case 'container': {
        const pending = this.expectedRefresh(action, subject);
        if (pending) return pending;
        // dockerd sends 'create' once the container exists: a read already known or running saw it
        if (action === 'create') return this.node.knownContainer(subject) ? Promise.resolve() : this.refreshContainer(subject, 'join');
        if (action === 'destroy') {
          const gone = this.node.knownContainer(subject);
          // as for a removal of ours: the `kill`/`die` events' reads may still be running, and must not bring it back
          this.node.containerRemoved(subject);
          if (gone && hasLinks(gone.config)) this.refreshLinkNames();
          return Promise.resolve();
        }
        if (action === 'commit') return this.refreshImages();
        return NO_REFRESH.has(action) ? Promise.resolve() : this.refreshContainer(subject);
      }
      case 'image':
        return this.refreshImages();
      case 'volume':
        return this.refreshVolume(subject);
      case 'network':
        // (dis)connecting a container changes the network's members, not what `network ls` shows
        return action === 'connect' || action === 'disconnect' ? Promise.resolve() : this.refreshNetwork(subject);
      default:
        return Promise.resolve();
    }
  }

  isConnected(): boolean {
    return this.connected;
  }

  ownsEngineId(): boolean {
    return this.ownsId && !this.stopped;
  }
}
