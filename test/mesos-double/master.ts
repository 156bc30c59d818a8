import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { DoubleAgent, type AgentSpec } from './agent.js';
import { isRefusal, parseCall, validateCall, type Refusal } from './call-validation.js';
import { Framework, newStreamId, newUpdateUuid } from './framework.js';
import { containerState, killTask, recoverTasks, removeTaskContainer, runTask, taskResources, type TaskMeta } from './task-runner.js';
import { TERMINAL, type CallJson, type Range, type Resource, type TaskInfoJson, type TaskState, type TaskStatusJson } from './types.js';
import { ZkMembership, type GroupDigest } from './zk-membership.js';

export interface MesosMasterDoubleOptions {
  agents: AgentSpec[];
  /** Register in this ZooKeeper group (`json.info_<seq>`); without it the double always leads. */
  zk?: { servers: string; path: string; digest?: GroupDigest };
  port?: number;
  heartbeatIntervalSeconds?: number;
  allocationIntervalMs?: number;
  /** How often an unacknowledged status update is sent again. */
  statusRetryMs?: number;
  ports?: Range;
  /**
   * The Docker containerizer's `--docker_remove_delay`, in ms: a task's container is removed this
   * long after the task ends (killed, exited). Unset keeps it, as the real default (6 hours) does
   * for a test's lifetime; 0 removes it as the TASK_KILLED update goes out.
   */
  removeDelayMs?: number;
}

interface TaskRecord {
  meta: TaskMeta;
  agent: DoubleAgent;
  state: TaskState;
  containerId?: string;
  killRequested?: boolean;
  /** When the ACCEPT arrived and when TASK_RUNNING was sent (ms since the epoch). */
  acceptedAt?: number;
  runningAt?: number;
}

const SCHEDULER_PATHS = new Set(['/api/v1/scheduler', '/master/api/v1/scheduler']);
const DEFAULT_REFUSE_SECONDS = 5;

function ipToUint32(ip: string): number {
  const octets = ip.split('.').map(Number);
  return ((octets[3]! << 24) | (octets[2]! << 16) | (octets[1]! << 8) | octets[0]!) >>> 0;
}

/**
 * A Mesos 1.11 master for tests: the v1 scheduler HTTP API over loopback, offers made from real
 * Docker engines acting as agents, Docker tasks run on those engines.
 */
export class MesosMasterDouble {
  readonly id = randomUUID();
  readonly agents: DoubleAgent[];
  /** Every call accepted (after validation), in order, for assertions. */
  readonly calls: CallJson[] = [];
  offersSent = 0;
  private readonly frameworks = new Map<string, Framework>();
  private readonly removed = new Set<string>();
  private readonly tasks = new Map<string, TaskRecord>();
  private readonly sockets = new Set<Socket>();
  private readonly timers: NodeJS.Timeout[] = [];
  private server: Server | undefined;
  private membership: ZkMembership | undefined;
  private leading = false;
  private faults: Array<{ status: number; body: string }> = [];
  /** Streams that get nothing any more (a hung connection), by stream ID. */
  private readonly silencedStreams = new Set<string>();
  private frameworkCounter = 0;
  private offerCounter = 0;
  private polling = false;
  port = 0;

  constructor(private readonly options: MesosMasterDoubleOptions) {
    const ports = options.ports ?? { begin: 31000, end: 31099 };
    this.agents = options.agents.map((spec) => new DoubleAgent(spec, ports));
  }

  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  masterInfo(): object {
    return {
      id: this.id,
      ip: ipToUint32('127.0.0.1'),
      port: this.port,
      hostname: 'localhost',
      pid: `master@127.0.0.1:${this.port}`,
      version: '1.11.0',
      address: { hostname: 'localhost', ip: '127.0.0.1', port: this.port },
    };
  }

  async start(): Promise<void> {
    await Promise.all(this.agents.map((agent) => agent.load()));
    const server = createServer((req, res) => void this.handle(req, res));
    server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    this.server = server;
    await new Promise<void>((resolve) => server.listen(this.options.port ?? 0, '127.0.0.1', resolve));
    this.port = (server.address() as AddressInfo).port;
    this.every((this.options.heartbeatIntervalSeconds ?? 15) * 1000, () => this.heartbeat());
    this.every(this.options.allocationIntervalMs ?? 250, () => this.allocate());
    this.every(this.options.statusRetryMs ?? 1000, () => {
      this.retryUpdates();
      void this.pollContainers();
    });
    if (this.options.zk) {
      this.membership = new ZkMembership({
        servers: this.options.zk.servers,
        path: this.options.zk.path,
        onChange: () => void this.leadershipChanged(),
        digest: this.options.zk.digest,
      });
      await this.membership.join(this.masterInfo());
    } else {
      await this.becomeLeader();
    }
  }

  /** Kill the master: its ZooKeeper entry goes away and every connection drops. */
  async stop(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    for (const framework of this.frameworks.values()) if (framework.failoverTimer) clearTimeout(framework.failoverTimer);
    this.membership?.leave();
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** Stop writing anything (heartbeats, events) on the current streams, as over a hung connection. */
  silenceStreams(): void {
    for (const framework of this.frameworks.values()) if (framework.stream) this.silencedStreams.add(framework.stream.id);
  }

  /** Fault injection: answer the next `count` scheduler requests with this status and text. */
  failNext(count: number, status: number, body: string): void {
    for (let i = 0; i < count; i++) this.faults.push({ status, body });
  }

  /** Send an ERROR event on every stream and close it, as the master does when it drops a framework. */
  sendError(message: string): void {
    for (const framework of this.frameworks.values()) framework.close(message);
  }

  /** Write raw bytes on every stream (to check how a scheduler copes with a corrupt stream). */
  sendRaw(bytes: Buffer): void {
    for (const framework of this.frameworks.values()) framework.stream?.response.write(bytes);
  }

  private isSilenced(framework: Framework): boolean {
    return framework.stream !== undefined && this.silencedStreams.has(framework.stream.id);
  }

  isLeader(): boolean {
    return this.leading;
  }

  frameworkList(): Array<{ id: string; name: string | undefined; connected: boolean; suppressed: boolean }> {
    return [...this.frameworks.values()].map((fw) => ({
      id: fw.id,
      name: fw.info.name,
      connected: fw.connected(),
      suppressed: fw.suppressed,
    }));
  }

  taskList(): Array<{
    taskId: string;
    frameworkId: string;
    agentId: string;
    hostname: string;
    state: TaskState;
    containerId?: string;
    acceptedAt?: number;
    runningAt?: number;
  }> {
    return [...this.tasks.values()].map((task) => ({
      taskId: task.meta.taskId,
      frameworkId: task.meta.frameworkId,
      agentId: task.agent.id,
      hostname: task.agent.hostname,
      state: task.state,
      ...(task.containerId ? { containerId: task.containerId } : {}),
      ...(task.acceptedAt ? { acceptedAt: task.acceptedAt } : {}),
      ...(task.runningAt ? { runningAt: task.runningAt } : {}),
    }));
  }

  /** Rescind every outstanding offer (as when an agent is removed). */
  rescindAll(): void {
    for (const framework of this.frameworks.values()) {
      for (const offerId of framework.offers.keys()) this.emit(framework, { type: 'RESCIND', rescind: { offer_id: { value: offerId } } });
      framework.offers.clear();
    }
  }

  private every(ms: number, run: () => void): void {
    const timer = setInterval(run, ms);
    timer.unref();
    this.timers.push(timer);
  }

  private async leadershipChanged(): Promise<void> {
    const leading = this.membership?.isLeader() ?? false;
    if (leading && !this.leading) await this.becomeLeader();
    this.leading = leading;
  }

  /** A newly elected master learns the running tasks from its agents. */
  private async becomeLeader(): Promise<void> {
    for (const agent of this.agents) {
      for (const found of await recoverTasks(agent.docker).catch(() => [])) {
        if (found.meta.agentId !== agent.id || this.tasks.has(found.meta.taskId)) continue;
        this.tasks.set(found.meta.taskId, {
          meta: found.meta,
          agent,
          containerId: found.containerId,
          state: found.running ? 'TASK_RUNNING' : 'TASK_FINISHED',
        });
      }
    }
    this.leading = true;
  }

  private emit(framework: Framework, event: object): boolean {
    if (this.isSilenced(framework)) return false;
    return framework.send(event);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0]!;
    if (!SCHEDULER_PATHS.has(path)) return this.answer(res, { status: 404, body: '' });
    const fault = this.faults.shift();
    if (fault) {
      req.resume();
      return this.answer(res, fault);
    }
    if (!this.leading) {
      const leader = this.membership?.leader();
      if (!leader) return this.answer(res, { status: 503, body: 'No leader elected' });
      req.resume();
      return this.answer(res, { status: 307, body: '', headers: { Location: `//${leader}${path}` } });
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const parsed = parseCall(req.method ?? 'GET', req.headers['content-type'], Buffer.concat(chunks).toString('utf8'));
    if (isRefusal(parsed)) return this.answer(res, parsed);
    const invalid = validateCall(parsed);
    if (invalid) return this.answer(res, invalid);
    const streamHeader = req.headers['mesos-stream-id'];
    if (parsed.type === 'SUBSCRIBE') {
      const accept = req.headers.accept;
      if (accept && !/application\/json|application\/x-protobuf|\*\/\*/.test(accept)) {
        return this.answer(res, { status: 406, body: "Expecting 'Accept' to allow 'application/x-protobuf' or 'application/json'" });
      }
      if (streamHeader !== undefined)
        return this.answer(res, { status: 400, body: "Subscribe calls should not include the 'Mesos-Stream-Id' header" });
      this.calls.push(parsed);
      return this.subscribe(parsed, res);
    }
    const framework = this.frameworks.get(parsed.framework_id?.value ?? '');
    if (!framework) return this.answer(res, { status: 400, body: 'Framework cannot be found' });
    if (!framework.connected()) return this.answer(res, { status: 403, body: 'Framework is not subscribed' });
    if (streamHeader === undefined)
      return this.answer(res, { status: 400, body: "All non-subscribe calls should include the 'Mesos-Stream-Id' header" });
    if (streamHeader !== framework.stream?.id) {
      return this.answer(res, {
        status: 400,
        body: `The stream ID '${String(streamHeader)}' included in this request didn't match the stream ID currently associated with framework ID ${framework.id}`,
      });
    }
    this.calls.push(parsed);
    this.answer(res, { status: 202, body: '' });
    this.dispatch(framework, parsed);
  }

  private answer(res: ServerResponse, refusal: Refusal): void {
    res.writeHead(refusal.status, { 'Content-Type': 'text/plain; charset=utf-8', ...(refusal.headers ?? {}) });
    res.end(refusal.body);
  }

  private subscribe(call: CallJson, res: ServerResponse): void {
    const info = call.subscribe!.framework_info!;
    const requestedId = info.id?.value;
    const streamId = newStreamId();
    res.writeHead(200, { 'Content-Type': 'application/json', 'Mesos-Stream-Id': streamId });
    if (requestedId && this.removed.has(requestedId)) {
      const gone = new Framework(requestedId, info);
      gone.stream = { id: streamId, response: res };
      gone.close('Framework has been removed');
      return;
    }
    let framework = requestedId ? this.frameworks.get(requestedId) : undefined;
    if (framework) {
      if (framework.stream) framework.close('Framework failed over');
      if (framework.failoverTimer) clearTimeout(framework.failoverTimer);
      framework.failoverTimer = undefined;
      framework.offers.clear();
      framework.info = info;
    } else {
      framework = new Framework(requestedId ?? `${this.id}-${String(this.frameworkCounter++).padStart(4, '0')}`, info);
      this.frameworks.set(framework.id, framework);
    }
    const subscribed = framework;
    subscribed.stream = { id: streamId, response: res };
    res.on('close', () => {
      if (subscribed.stream?.id === streamId) this.disconnected(subscribed);
    });
    this.emit(subscribed, {
      type: 'SUBSCRIBED',
      subscribed: {
        framework_id: { value: subscribed.id },
        heartbeat_interval_seconds: this.options.heartbeatIntervalSeconds ?? 15,
        master_info: this.masterInfo(),
      },
    });
    for (const queue of subscribed.unacknowledged.values())
      if (queue[0]) this.emit(subscribed, { type: 'UPDATE', update: { status: queue[0] } });
  }

  private disconnected(framework: Framework): void {
    framework.stream = undefined;
    framework.offers.clear();
    const timeoutMs = (framework.info.failover_timeout ?? 0) * 1000;
    framework.failoverTimer = setTimeout(() => this.removeFramework(framework), timeoutMs);
    framework.failoverTimer.unref();
  }

  /** Failover timeout expired or TEARDOWN: its tasks are killed and it may not come back. */
  private removeFramework(framework: Framework): void {
    if (framework.failoverTimer) clearTimeout(framework.failoverTimer);
    framework.close();
    this.frameworks.delete(framework.id);
    this.removed.add(framework.id);
    for (const task of this.tasks.values()) {
      if (task.meta.frameworkId !== framework.id || TERMINAL.has(task.state)) continue;
      task.state = 'TASK_KILLED';
      if (task.containerId) void killTask(task.agent.docker, task.containerId).catch(() => undefined);
    }
  }

  private dispatch(framework: Framework, call: CallJson): void {
    switch (call.type) {
      case 'TEARDOWN':
        this.removeFramework(framework);
        break;
      case 'ACCEPT':
        this.accept(framework, call);
        break;
      case 'DECLINE':
        for (const offerId of call.decline?.offer_ids ?? [])
          this.dropOffer(framework, offerId.value, call.decline?.filters?.refuse_seconds);
        break;
      case 'REVIVE':
        framework.suppressed = false;
        framework.refusedUntil.clear();
        break;
      case 'SUPPRESS':
        framework.suppressed = true;
        break;
      case 'KILL':
        this.kill(framework, call.kill?.task_id?.value ?? '', call.kill?.kill_policy?.grace_period?.nanoseconds);
        break;
      case 'ACKNOWLEDGE':
        this.acknowledge(framework, call.acknowledge?.task_id?.value ?? '', call.acknowledge?.uuid ?? '');
        break;
      case 'RECONCILE':
        this.reconcile(
          framework,
          (call.reconcile?.tasks ?? []).map((task) => task.task_id?.value ?? ''),
        );
        break;
      default:
        break;
    }
  }

  private dropOffer(framework: Framework, offerId: string, refuseSeconds: number | undefined): void {
    const offer = framework.offers.get(offerId);
    if (!offer) return;
    framework.offers.delete(offerId);
    framework.refusedUntil.set(offer.agentId, Date.now() + (refuseSeconds ?? DEFAULT_REFUSE_SECONDS) * 1000);
  }

  private accept(framework: Framework, call: CallJson): void {
    const offerIds = (call.accept?.offer_ids ?? []).map((offer) => offer.value);
    const offers = offerIds.map((id) => framework.offers.get(id));
    const tasks = (call.accept?.operations ?? []).filter((op) => op.type === 'LAUNCH').flatMap((op) => op.launch?.task_infos ?? []);
    const invalid = offerIds.find((_, index) => offers[index] === undefined);
    const agentIds = new Set(offers.filter((offer) => offer !== undefined).map((offer) => offer.agentId));
    for (const id of offerIds) this.dropOffer(framework, id, call.accept?.filters?.refuse_seconds);
    for (const task of tasks) {
      const taskId = task.task_id?.value ?? '';
      const agent = this.agents.find((candidate) => candidate.id === task.agent_id?.value);
      if (invalid !== undefined || offerIds.length === 0 || agentIds.size !== 1) {
        this.update(framework, taskId, task.agent_id?.value, 'TASK_LOST', {
          source: 'SOURCE_MASTER',
          reason: 'REASON_INVALID_OFFERS',
          message: `Task launched with invalid offers: Offer ${invalid ?? '(none)'} is no longer valid`,
        });
        continue;
      }
      const offered = offers.flatMap((offer) => offer?.resources ?? []);
      const problem = this.checkTask(task, offered, agent);
      if (problem || !agent) {
        this.update(framework, taskId, task.agent_id?.value, 'TASK_ERROR', {
          source: 'SOURCE_MASTER',
          reason: 'REASON_TASK_INVALID',
          message: problem ?? 'Task uses an unknown agent',
        });
        continue;
      }
      this.launch(framework, agent, task);
    }
  }

  private checkTask(task: TaskInfoJson, offered: Resource[], agent: DoubleAgent | undefined): string | undefined {
    if (!agent || !offered.length) return 'Task uses an unknown agent';
    if (!task.task_id?.value) return "Task ID ''' is invalid";
    if (this.tasks.has(task.task_id.value)) return `Task has duplicate ID: ${task.task_id.value}`;
    const wanted = taskResources(task);
    const sum = (name: string) =>
      offered.filter((resource) => resource.name === name).reduce((total, resource) => total + (resource.scalar?.value ?? 0), 0);
    const ranges = offered.filter((resource) => resource.name === 'ports').flatMap((resource) => resource.ranges?.range ?? []);
    const portFree = (port: number) => ranges.some((range) => port >= range.begin && port <= range.end);
    if (wanted.cpus > sum('cpus') + 1e-9 || wanted.mem > sum('mem') + 1e-9 || !wanted.ports.every(portFree)) {
      return `Task uses more resources cpus:${wanted.cpus}; mem:${wanted.mem}; ports:[${wanted.ports.join(',')}] than available ${JSON.stringify(offered.map((resource) => resource.name))}`;
    }
    if (!task.container?.docker?.image) return 'Task is a DOCKER task without an image';
    return undefined;
  }

  private launch(framework: Framework, agent: DoubleAgent, task: TaskInfoJson): void {
    const meta: TaskMeta = { taskId: task.task_id!.value, frameworkId: framework.id, agentId: agent.id, ...taskResources(task) };
    const record: TaskRecord = { meta, agent, state: 'TASK_STAGING', acceptedAt: Date.now() };
    this.tasks.set(meta.taskId, record);
    this.update(framework, meta.taskId, agent.id, 'TASK_STARTING', { source: 'SOURCE_EXECUTOR' });
    runTask(agent.docker, task, meta).then(
      ({ containerId, inspect }) => {
        record.containerId = containerId;
        if (record.killRequested) {
          void killTask(agent.docker, containerId).then(() =>
            this.update(framework, meta.taskId, agent.id, 'TASK_KILLED', { source: 'SOURCE_EXECUTOR' }),
          );
          return;
        }
        record.runningAt = Date.now();
        this.update(framework, meta.taskId, agent.id, 'TASK_RUNNING', {
          source: 'SOURCE_EXECUTOR',
          data: Buffer.from(JSON.stringify([inspect])).toString('base64'),
          container_status: { container_id: { value: containerId } },
        });
      },
      (error: Error) =>
        this.update(framework, meta.taskId, agent.id, 'TASK_FAILED', {
          source: 'SOURCE_EXECUTOR',
          reason: 'REASON_CONTAINER_LAUNCH_FAILED',
          message: `Failed to launch container: ${error.message}`,
        }),
    );
  }

  /** A reliable status update: kept and re-sent until the framework acknowledges its uuid. */
  private update(
    framework: Framework,
    taskId: string,
    agentId: string | undefined,
    state: TaskState,
    extra: Partial<TaskStatusJson>,
  ): void {
    const record = this.tasks.get(taskId);
    if (record) record.state = state;
    const status: TaskStatusJson = {
      task_id: { value: taskId },
      state,
      source: 'SOURCE_MASTER',
      timestamp: Date.now() / 1000,
      ...extra,
      ...(agentId ? { agent_id: { value: agentId } } : {}),
    };
    if (status.source === 'SOURCE_MASTER') {
      // Master-generated updates (invalid launches) are not reliable: no uuid, no retry.
      this.emit(framework, { type: 'UPDATE', update: { status } });
      return;
    }
    status.uuid = newUpdateUuid();
    const queue = framework.unacknowledged.get(taskId) ?? [];
    queue.push(status);
    framework.unacknowledged.set(taskId, queue);
    if (queue.length === 1) this.emit(framework, { type: 'UPDATE', update: { status } });
  }

  private acknowledge(framework: Framework, taskId: string, uuid: string): void {
    const queue = framework.unacknowledged.get(taskId);
    if (!queue || queue[0]?.uuid !== uuid) return;
    queue.shift();
    if (queue.length === 0) framework.unacknowledged.delete(taskId);
    else this.emit(framework, { type: 'UPDATE', update: { status: queue[0] } });
  }

  private retryUpdates(): void {
    for (const framework of this.frameworks.values()) {
      for (const queue of framework.unacknowledged.values())
        if (queue[0]) this.emit(framework, { type: 'UPDATE', update: { status: queue[0] } });
    }
  }

  /** KILL: the Docker executor stops the container, SIGTERM first when a grace period is given. */
  private kill(framework: Framework, taskId: string, graceNanoseconds?: number): void {
    const record = this.tasks.get(taskId);
    if (!record || record.meta.frameworkId !== framework.id) {
      this.emit(framework, {
        type: 'UPDATE',
        update: {
          status: {
            task_id: { value: taskId },
            state: 'TASK_LOST',
            source: 'SOURCE_MASTER',
            reason: 'REASON_RECONCILIATION',
            message: 'Reconciliation: Task is unknown',
            timestamp: Date.now() / 1000,
          },
        },
      });
      return;
    }
    if (TERMINAL.has(record.state)) return;
    const launched = record.containerId !== undefined;
    record.killRequested = true;
    if (!launched) return;
    const graceSeconds = graceNanoseconds === undefined ? undefined : Math.ceil(graceNanoseconds / 1e9);
    void killTask(record.agent.docker, record.containerId!, graceSeconds).then(
      () => {
        this.update(framework, taskId, record.agent.id, 'TASK_KILLED', { source: 'SOURCE_EXECUTOR', message: 'Container killed' });
        this.removeLater(record);
      },
      (error: Error) =>
        this.update(framework, taskId, record.agent.id, 'TASK_FAILED', {
          source: 'SOURCE_EXECUTOR',
          message: `Failed to kill container: ${error.message}`,
        }),
    );
  }

  /** Reconciliation answers carry the latest state, no uuid, reason REASON_RECONCILIATION. */
  private reconcile(framework: Framework, taskIds: string[]): void {
    const answer = (taskId: string, state: TaskState, agentId: string | undefined, message: string) =>
      this.emit(framework, {
        type: 'UPDATE',
        update: {
          status: {
            task_id: { value: taskId },
            state,
            source: 'SOURCE_MASTER',
            reason: 'REASON_RECONCILIATION',
            message,
            timestamp: Date.now() / 1000,
            ...(agentId ? { agent_id: { value: agentId } } : {}),
          },
        },
      });
    if (taskIds.length === 0) {
      for (const task of this.tasks.values()) {
        if (task.meta.frameworkId === framework.id && !TERMINAL.has(task.state))
          answer(task.meta.taskId, task.state, task.agent.id, 'Reconciliation: Latest task state');
      }
      return;
    }
    for (const taskId of taskIds) {
      const task = this.tasks.get(taskId);
      if (task && task.meta.frameworkId === framework.id) answer(taskId, task.state, task.agent.id, 'Reconciliation: Latest task state');
      else answer(taskId, 'TASK_LOST', undefined, 'Reconciliation: Task is unknown');
    }
  }

  private usedOn(agent: DoubleAgent): { cpus: number; mem: number; ports: Set<number> } {
    const used = { cpus: 0, mem: 0, ports: new Set<number>() };
    for (const task of this.tasks.values()) {
      if (task.agent !== agent || TERMINAL.has(task.state)) continue;
      used.cpus += task.meta.cpus;
      used.mem += task.meta.mem;
      for (const port of task.meta.ports) used.ports.add(port);
    }
    return used;
  }

  private allocate(): void {
    if (!this.leading) return;
    const now = Date.now();
    const offeredAgents = new Set<string>();
    for (const framework of this.frameworks.values()) for (const offer of framework.offers.values()) offeredAgents.add(offer.agentId);
    for (const framework of this.frameworks.values()) {
      if (!framework.connected() || framework.suppressed || this.isSilenced(framework)) continue;
      const batch: object[] = [];
      for (const agent of this.agents) {
        if (offeredAgents.has(agent.id) || (framework.refusedUntil.get(agent.id) ?? 0) > now) continue;
        const resources = agent.available(this.usedOn(agent));
        if (!resources.some((resource) => resource.name === 'cpus' || resource.name === 'mem')) continue;
        const offerId = `${this.id}-O${this.offerCounter++}`;
        framework.offers.set(offerId, { id: offerId, agentId: agent.id, resources });
        offeredAgents.add(agent.id);
        batch.push({
          id: { value: offerId },
          framework_id: { value: framework.id },
          agent_id: { value: agent.id },
          hostname: agent.hostname,
          url: agent.url(),
          resources,
          attributes: agent.attributes(),
        });
      }
      if (batch.length > 0) {
        this.offersSent += batch.length;
        this.emit(framework, { type: 'OFFERS', offers: { offers: batch } });
      }
    }
  }

  private heartbeat(): void {
    for (const framework of this.frameworks.values()) this.emit(framework, { type: 'HEARTBEAT' });
  }

  /** The containerizer's removal of an ended task's container, `removeDelayMs` after the end. */
  private removeLater(task: TaskRecord): void {
    const delay = this.options.removeDelayMs;
    if (delay === undefined || !task.containerId) return;
    const remove = () => void removeTaskContainer(task.agent.docker, task.containerId!).catch(() => undefined);
    if (delay === 0) remove();
    else setTimeout(remove, delay).unref();
  }

  /** The Docker executor reports a task whose container exited or vanished. */
  private async pollContainers(): Promise<void> {
    if (this.polling || !this.leading) return;
    this.polling = true;
    try {
      for (const task of this.tasks.values()) {
        if (task.state !== 'TASK_RUNNING' || !task.containerId || task.killRequested) continue;
        const state = await containerState(task.agent.docker, task.containerId);
        if (state === 'running' || task.state !== 'TASK_RUNNING') continue;
        const framework = this.frameworks.get(task.meta.frameworkId);
        const code = state === 'gone' ? undefined : Number(state.split(':')[1]);
        const finalState: TaskState = code === 0 ? 'TASK_FINISHED' : 'TASK_FAILED';
        const message = code === undefined ? 'Container removed' : `Container exited with status ${code}`;
        if (framework) this.update(framework, task.meta.taskId, task.agent.id, finalState, { source: 'SOURCE_EXECUTOR', message });
        else task.state = finalState;
        if (code !== undefined) this.removeLater(task);
      }
    } finally {
      this.polling = false;
    }
  }
}
