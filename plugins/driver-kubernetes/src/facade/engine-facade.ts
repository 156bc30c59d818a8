import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { isSwarmError, type EngineEndpoint, type Logger } from '@swarm/plugin-sdk';
import { KubernetesErrors } from '../errors.js';
import type { PodContainer } from '../pod-container.js';
import type { PodControl } from '../pod-control.js';
import { ExecSessions, exitCodeOf, type ExecSession } from './exec-sessions.js';
import { framedWriter } from './frames.js';
import { streamLogs } from './logs.js';
import { serveStats } from './stats.js';

/** What the façade needs of the cluster. */
export interface FacadeCluster {
  container(idOrName: string): PodContainer | undefined;
  /** `GET /images/{name}/json`'s answer, or undefined for an image no node reports. */
  imageJson(idOrName: string): Record<string, unknown> | undefined;
  /** `docker network connect|disconnect`: the container's names on the namespace's one network. */
  networkMembership(network: string, container: PodContainer, connect: boolean, aliases: readonly string[]): Promise<void>;
  /** `GET /networks/{id}`'s answer, or undefined for an unknown network. */
  networkJson(idOrName: string): Record<string, unknown> | undefined;
  readonly control: PodControl;
}

export interface FacadeOptions {
  cluster: FacadeCluster;
  config: k8s.KubeConfig;
  namespace: string;
  logger: Logger;
}

type Answer = { status: number; body?: unknown };

/** Where an exec's output goes: the hijacked socket, a streamed response, or a buffer. */
type ExecOutput = { write(chunk: Buffer): unknown; end(): unknown; readonly destroyed?: boolean };

const UPGRADE_HEAD =
  'HTTP/1.1 101 UPGRADED\r\nContent-Type: application/vnd.docker.raw-stream\r\nConnection: Upgrade\r\nUpgrade: tcp\r\n\r\n';

class Refusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function readBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > 1 << 20) req.destroy(new Error('body too large'));
      else chunks.push(chunk);
    });
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8').trim();
      if (text === '') return resolve({});
      try {
        const parsed: unknown = JSON.parse(text);
        resolve(typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {});
      } catch {
        reject(new Refusal(400, 'invalid JSON body'));
      }
    });
    req.on('error', reject);
  });
}

/**
 * A Docker engine API served in this process over the pods API, for the container calls the
 * manager's API front proxies to "the container's engine": inspect, logs, wait, stop, kill,
 * restart, attach and exec. Every node's `endpoint()` is this one Unix socket, so the API front
 * and its streaming, hijacking and exec bookkeeping work unchanged, and nothing dials a node.
 */
export class EngineFacade {
  private readonly server: Server;
  private readonly dir = mkdtempSync(join(tmpdir(), 'swarm-k8s-'));
  private readonly socketPath = join(this.dir, 'engine.sock');
  private readonly execs = new ExecSessions();
  private listening = false;

  constructor(private readonly options: FacadeOptions) {
    this.server = createServer((req, res) => void this.serve(req, res));
    this.server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => void this.serveUpgrade(req, socket, head));
  }

  endpoint(): EngineEndpoint | undefined {
    return this.listening ? { protocol: 'http', host: 'localhost', port: 0, socketPath: this.socketPath } : undefined;
  }

  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.socketPath, () => {
        this.listening = true;
        resolve();
      });
    });
  }

  async stop(): Promise<void> {
    this.listening = false;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    rmSync(this.dir, { recursive: true, force: true });
  }

  private route(req: IncomingMessage): { parts: string[]; query: URLSearchParams } {
    const url = new URL(req.url ?? '/', 'http://facade');
    const path = url.pathname.replace(/^\/v\d+(\.\d+)?(?=\/)/, '');
    return { parts: path.split('/').filter(Boolean).map(decodeURIComponent), query: url.searchParams };
  }

  private find(id: string): PodContainer {
    const container = this.options.cluster.container(id);
    if (!container) throw new Refusal(404, `No such container: ${id}`);
    return this.options.cluster.control.current(container);
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      const { parts, query } = this.route(req);
      const method = req.method ?? 'GET';
      const [kind, id = '', operation = ''] = parts;
      if (kind === '_ping') return this.send(res, { status: 200, body: 'OK' });
      if (kind === 'containers') {
        const container = this.find(id);
        if (method === 'GET' && operation === 'json') return this.send(res, { status: 200, body: container.inspectJson() });
        if (method === 'GET' && operation === 'logs') return await streamLogs(this.options, container, query, req, res);
        if (method === 'POST' && operation === 'wait') return await this.wait(container, query, req, res);
        if (method === 'POST' && operation === 'stop') {
          const stopped = await this.options.cluster.control.stop(container, seconds(query));
          return this.send(res, { status: stopped ? 204 : 304 });
        }
        if (method === 'POST' && operation === 'restart') {
          await this.options.cluster.control.restart(container, seconds(query));
          return this.send(res, { status: 204 });
        }
        if (method === 'POST' && operation === 'kill') {
          await this.options.cluster.control.kill(container, query.get('signal') ?? 'KILL', (target, signal) =>
            this.signal(target, signal),
          );
          return this.send(res, { status: 204 });
        }
        if (method === 'POST' && operation === 'resize') return this.send(res, { status: 200 });
        if (method === 'POST' && operation === 'exec') return this.send(res, await this.createExec(container, await readBody(req)));
        if (operation === 'attach') return await this.attach(container, query, req.socket, res);
        if (method === 'GET' && operation === 'stats') {
          return await serveStats(this.options.config, this.options.namespace, container, query, req, res);
        }
        if (method === 'GET' && operation === 'top') return this.send(res, { status: 200, body: await this.top(container, query) });
        throw KubernetesErrors.notServed({ what: `${method} /containers/{id}/${operation}`, why: 'a pod has no such operation' });
      }
      if (kind === 'images' && method === 'GET' && parts[parts.length - 1] === 'json') {
        const name = parts.slice(1, -1).join('/');
        const image = this.options.cluster.imageJson(name);
        if (!image) throw new Refusal(404, `No such image: ${name}`);
        return this.send(res, { status: 200, body: image });
      }
      if (kind === 'networks' && method === 'GET' && operation === '') {
        const network = this.options.cluster.networkJson(id);
        if (!network) throw new Refusal(404, `network ${id} not found`);
        return this.send(res, { status: 200, body: network });
      }
      if (kind === 'networks' && method === 'POST' && (operation === 'connect' || operation === 'disconnect')) {
        const body = await readBody(req);
        const container = this.find(String(body['Container'] ?? ''));
        const endpoint = (body['EndpointConfig'] ?? {}) as { Aliases?: unknown };
        const aliases = Array.isArray(endpoint.Aliases) ? endpoint.Aliases.map(String) : [];
        await this.options.cluster.networkMembership(id, container, operation === 'connect', aliases);
        return this.send(res, { status: 200 });
      }
      if (kind === 'exec') {
        const session = this.execs.get(id);
        if (!session) throw KubernetesErrors.noSuchExec({ id });
        if (method === 'GET' && operation === 'json') return this.send(res, { status: 200, body: execJson(session) });
        if (method === 'POST' && operation === 'resize') {
          session.resize?.(Number(query.get('w') ?? 0), Number(query.get('h') ?? 0));
          return this.send(res, { status: 200 });
        }
        if (method === 'POST' && operation === 'start') {
          const body = await readBody(req);
          if (body['Detach'] === true) {
            void this.runExec(session, undefined);
            return this.send(res, { status: 200 });
          }
          res.writeHead(200, {
            'Content-Type': session.tty ? 'application/vnd.docker.raw-stream' : 'application/vnd.docker.multiplexed-stream',
          });
          return await this.runExec(session, res);
        }
      }
      throw new Refusal(404, 'page not found');
    } catch (error) {
      this.fail(res, error);
    }
  }

  private async serveUpgrade(req: IncomingMessage, socket: Socket, head: Buffer): Promise<void> {
    socket.on('error', () => undefined);
    try {
      const { parts, query } = this.route(req);
      const [kind, id = '', operation = ''] = parts;
      // a hijacked request's body is not parsed by Node: it arrives as the first bytes of the socket
      const body = await readUpgradeBody(req, socket, head);
      if (kind === 'containers' && operation === 'attach') {
        const container = this.find(id);
        socket.write(UPGRADE_HEAD);
        return await this.attach(container, query, socket, undefined);
      }
      if (kind === 'exec' && operation === 'start') {
        const session = this.execs.get(id);
        if (!session) throw KubernetesErrors.noSuchExec({ id });
        if (body['Tty'] === true) session.tty = true;
        socket.write(UPGRADE_HEAD);
        return await this.runExec(session, socket);
      }
      throw new Refusal(404, 'page not found');
    } catch (error) {
      const status = error instanceof Refusal ? error.status : isSwarmError(error) ? error.httpStatus : 500;
      const body = JSON.stringify({ message: (error as Error).message });
      socket.end(`HTTP/1.1 ${status} Error\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    }
  }

  private send(res: ServerResponse, answer: Answer): void {
    if (answer.body === undefined) {
      res.writeHead(answer.status);
      res.end();
      return;
    }
    const text = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
    res.writeHead(answer.status, { 'Content-Type': typeof answer.body === 'string' ? 'text/plain' : 'application/json' });
    res.end(text);
  }

  private fail(res: ServerResponse, error: unknown): void {
    const status = error instanceof Refusal ? error.status : isSwarmError(error) ? error.httpStatus : 500;
    if (status >= 500) this.options.logger.warn({ err: (error as Error).message }, 'kubernetes: engine façade call failed');
    if (res.headersSent) {
      res.destroy();
      return;
    }
    this.send(res, { status, body: { message: (error as Error).message } });
  }

  /** Headers at once (the docker CLI waits on them before it starts the container), the exit code when it comes. */
  private async wait(container: PodContainer, query: URLSearchParams, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const abort = new AbortController();
    res.on('close', () => abort.abort());
    req.resume();
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.flushHeaders();
    const code = await this.options.cluster.control.wait(container, query.get('condition') ?? 'not-running', abort.signal);
    if (!res.destroyed) res.end(`${JSON.stringify({ StatusCode: code, Error: null })}\n`);
  }

  private createExec(container: PodContainer, body: Record<string, unknown>): Answer {
    if (container.state !== 'running') throw new Refusal(409, `Container ${container.id} is not running`);
    const cmd = Array.isArray(body['Cmd']) ? (body['Cmd'] as unknown[]).map(String) : [];
    if (cmd.length === 0) throw new Refusal(400, 'No exec command specified');
    for (const [key, flag] of [
      ['User', '--user'],
      ['WorkingDir', '--workdir'],
      ['Privileged', '--privileged'],
    ] as const) {
      const value = body[key];
      if (value !== undefined && value !== null && value !== '' && value !== false) {
        throw KubernetesErrors.optionUnsupported({
          option: `docker exec ${flag}`,
          why: 'the Kubernetes exec API runs the command as the container is configured',
        });
      }
    }
    if (Array.isArray(body['Env']) && body['Env'].length > 0) {
      throw KubernetesErrors.optionUnsupported({
        option: 'docker exec --env',
        why: 'the Kubernetes exec API takes no environment: use env NAME=value COMMAND',
      });
    }
    const session = this.execs.create({
      containerId: container.id,
      podName: container.podName,
      cmd,
      tty: body['Tty'] === true,
      attachStdin: body['AttachStdin'] === true,
      attachStdout: body['AttachStdout'] !== false,
      attachStderr: body['AttachStderr'] !== false,
    });
    return { status: 201, body: { Id: session.id } };
  }

  /** Runs an exec through the API server's WebSocket exec; `out` gets its output (and gives stdin, when a socket). */
  private async runExec(session: ExecSession, out: ExecOutput | undefined, raw = false): Promise<void> {
    session.running = true;
    const stdout = out && session.attachStdout ? resizable(framedWriter(out, 1, session.tty || raw)) : null;
    const stderr = out && session.attachStderr ? framedWriter(out, 2, session.tty) : null;
    const stdin = out && session.attachStdin && 'unshift' in out ? (out as Socket) : null;
    if (stdout && session.tty) session.resize = (width, height) => stdout.resizeTo(width, height);
    const finished = new Promise<void>((resolve) => {
      new k8s.Exec(this.options.config)
        .exec(this.options.namespace, session.podName, 'container', session.cmd, stdout, stderr, stdin, session.tty, (status) => {
          session.exitCode = exitCodeOf(status);
        })
        .then(
          (ws) => {
            // the socket was paused while the request was read: stdin flows once the exec is connected
            stdin?.resume();
            ws.on('close', () => resolve());
            ws.on('error', () => resolve());
          },
          (error: unknown) => {
            session.exitCode = 126;
            if (stderr) stderr.write(Buffer.from(`${(error as Error).message}\n`));
            resolve();
          },
        );
    });
    await finished;
    session.running = false;
    session.resize = undefined;
    session.exitCode ??= 0;
    if (out && !out.destroyed) out.end();
  }

  /**
   * `docker attach` / an attached `docker run`: output from the start through the log stream
   * (which waits for the container), or the API server's attach when stdin is wanted.
   */
  private async attach(given: PodContainer, query: URLSearchParams, socket: Socket, res: ServerResponse | undefined): Promise<void> {
    const tty = given.config.Tty === true;
    const out = res ?? socket;
    if (res)
      res.writeHead(200, { 'Content-Type': tty ? 'application/vnd.docker.raw-stream' : 'application/vnd.docker.multiplexed-stream' });
    const wantsStdin = query.get('stdin') === '1' || query.get('stdin') === 'true';
    const wasRunning = given.state === 'running';
    const started = await this.options.cluster.control.waitStarted(given);
    const container = this.options.cluster.control.current(given);
    if (!started) {
      out.end();
      return;
    }
    if (wantsStdin && container.config.OpenStdin && !res) {
      const stdout = framedWriter(socket, 1, tty);
      const stderr = framedWriter(socket, 2, tty);
      await new Promise<void>((resolve) => {
        new k8s.Attach(this.options.config)
          .attach(this.options.namespace, container.podName, 'container', stdout, stderr, socket, tty)
          .then(
            (ws) => {
              socket.resume();
              ws.on('close', () => resolve());
              ws.on('error', () => resolve());
            },
            () => resolve(),
          );
      });
      if (!socket.destroyed) socket.end();
      return;
    }
    const logQuery = new URLSearchParams({ follow: '1', stdout: '1', stderr: '1' });
    // attaching to a running container shows what it prints from now on (docker attach), unless logs=1
    if (query.get('logs') !== '1' && wasRunning) logQuery.set('tail', '0');
    await streamLogs(this.options, container, logQuery, undefined, out, true);
  }

  /**
   * `docker top`: the container's `ps` run through the exec API (the API server has no process
   * list). An image without `ps` gets a 501 saying so.
   */
  private async top(container: PodContainer, query: URLSearchParams): Promise<{ Titles: string[]; Processes: string[][] }> {
    if (container.state !== 'running') throw new Refusal(409, `Container ${container.id} is not running`);
    const args = (query.get('ps_args') ?? '').split(/\s+/).filter(Boolean);
    const chunks: Buffer[] = [];
    const sink: ExecOutput = { write: (chunk: Buffer) => chunks.push(chunk), end: () => undefined, destroyed: false };
    const session = this.execs.create({
      containerId: container.id,
      podName: container.podName,
      cmd: ['ps', ...args],
      tty: false,
      attachStdin: false,
      attachStdout: true,
      attachStderr: false,
    });
    await this.runExec(session, sink, true);
    if (session.exitCode !== 0) {
      throw KubernetesErrors.notServed({
        what: 'docker top',
        why: `ps inside the container exited with ${session.exitCode} (the image needs a ps)`,
      });
    }
    const lines = Buffer.concat(chunks)
      .toString('utf8')
      .split('\n')
      .filter((line) => line.trim() !== '');
    const titles = (lines[0] ?? '').trim().split(/\s+/);
    const processes = lines.slice(1).map((line) => {
      const fields = line.trim().split(/\s+/);
      return [...fields.slice(0, titles.length - 1), fields.slice(titles.length - 1).join(' ')];
    });
    return { Titles: titles, Processes: processes };
  }

  /** A signal other than SIGKILL: `kill` inside the container, as the API server has no signal call. */
  private async signal(container: PodContainer, signal: string): Promise<void> {
    const session = this.execs.create({
      containerId: container.id,
      podName: container.podName,
      cmd: ['kill', `-${signal}`, '1'],
      tty: false,
      attachStdin: false,
      attachStdout: false,
      attachStderr: false,
    });
    await this.runExec(session, undefined);
    if (session.exitCode !== 0) {
      throw KubernetesErrors.apiRefused({
        status: 500,
        what: `docker kill -s ${signal}`,
        message: `kill inside the container exited with ${session.exitCode}`,
      });
    }
  }
}

/** Reads Content-Length bytes of body from what came with the upgrade and then the socket; the rest stays for stdin. */
async function readUpgradeBody(req: IncomingMessage, socket: Socket, head: Buffer): Promise<Record<string, unknown>> {
  const length = Number(req.headers['content-length'] ?? 0);
  let buffered = head;
  while (buffered.length < length) {
    const chunk = await new Promise<Buffer | undefined>((resolve) => {
      const onData = (data: Buffer) => {
        cleanup();
        resolve(data);
      };
      const onEnd = () => {
        cleanup();
        resolve(undefined);
      };
      const cleanup = () => {
        socket.off('data', onData);
        socket.off('end', onEnd);
        socket.off('close', onEnd);
      };
      socket.on('data', onData);
      socket.once('end', onEnd);
      socket.once('close', onEnd);
    });
    if (!chunk) break;
    buffered = Buffer.concat([buffered, chunk]);
  }
  socket.pause();
  const rest = buffered.subarray(length);
  if (rest.length > 0) socket.unshift(rest);
  const text = buffered.subarray(0, length).toString('utf8').trim();
  if (text === '') return {};
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
  } catch {
    throw new Refusal(400, 'invalid JSON body');
  }
}

function seconds(query: URLSearchParams): number | undefined {
  const raw = query.get('t') ?? query.get('timeout');
  if (raw === null || raw === '') return undefined;
  const value = Number(raw);
  return Number.isFinite(value) ? value : undefined;
}

function execJson(session: ExecSession): Record<string, unknown> {
  return {
    ID: session.id,
    Running: session.running,
    ExitCode: session.exitCode,
    ProcessConfig: { tty: session.tty, entrypoint: session.cmd[0] ?? '', arguments: session.cmd.slice(1), privileged: false, user: '' },
    OpenStdin: session.attachStdin,
    OpenStderr: session.attachStderr,
    OpenStdout: session.attachStdout,
    CanRemove: false,
    ContainerID: session.containerId,
    DetachKeys: '',
    Pid: 0,
  };
}

/** A writable the exec client treats as a terminal: resizes go to the API server's resize channel. */
function resizable<W extends NodeJS.WritableStream & { emit(event: string): boolean }>(
  stream: W,
): W & { columns: number; rows: number; resizeTo(width: number, height: number): void } {
  const out = stream as W & { columns: number; rows: number; resizeTo(width: number, height: number): void };
  out.columns = 80;
  out.rows = 24;
  out.resizeTo = (width, height) => {
    if (width <= 0 || height <= 0) return;
    out.columns = width;
    out.rows = height;
    out.emit('resize');
  };
  return out;
}
