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
import { ExecRunner, execJson } from './exec-runner.js';
import { framedWriter } from './frames.js';
import { readBody, readUpgradeBody } from './request-bodies.js';
import { streamLogs } from './logs.js';
import { serveStats } from './stats.js';

/** What the engine emulator needs of the cluster. */
export interface EmulatedCluster {
  container(idOrName: string): PodContainer | undefined;
  /** `GET /images/{name}/json`'s answer, or undefined for an image no node reports. */
  imageJson(idOrName: string): Record<string, unknown> | undefined;
  /** `docker network connect|disconnect`: the container's names on the namespace's one network. */
  networkMembership(network: string, container: PodContainer, connect: boolean, aliases: readonly string[]): Promise<void>;
  /** `GET /networks/{id}`'s answer, or undefined for an unknown network. */
  networkJson(idOrName: string): Record<string, unknown> | undefined;
  readonly control: PodControl;
}

export interface EngineEmulatorOptions {
  cluster: EmulatedCluster;
  config: k8s.KubeConfig;
  namespace: string;
  logger: Logger;
}

type Answer = { status: number; body?: unknown };

const UPGRADE_HEAD =
  'HTTP/1.1 101 UPGRADED\r\nContent-Type: application/vnd.docker.raw-stream\r\nConnection: Upgrade\r\nUpgrade: tcp\r\n\r\n';

/**
 * A Docker engine API served in this process over the pods API, for the container calls the
 * manager's API front proxies to "the container's engine": inspect, logs, wait, stop, kill,
 * restart, attach and exec. Every node's `endpoint()` is this one Unix socket, so the API front
 * and its streaming, hijacking and exec bookkeeping work unchanged, and nothing dials a node.
 */
export class EngineEmulator {
  private readonly server: Server;
  private readonly dir = mkdtempSync(join(tmpdir(), 'swarm-k8s-'));
  private readonly socketPath = join(this.dir, 'engine.sock');
  private readonly exec: ExecRunner;
  private listening = false;

  constructor(private readonly options: EngineEmulatorOptions) {
    this.exec = new ExecRunner(options.config, options.namespace);
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
    const url = new URL(req.url ?? '/', 'http://engine-emulator');
    const path = url.pathname.replace(/^\/v\d+(\.\d+)?(?=\/)/, '');
    return { parts: path.split('/').filter(Boolean).map(decodeURIComponent), query: url.searchParams };
  }

  private find(id: string): PodContainer {
    const container = this.options.cluster.container(id);
    if (!container) throw KubernetesErrors.noSuchContainer({ name: id });
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
            this.exec.signal(target, signal),
          );
          return this.send(res, { status: 204 });
        }
        if (method === 'POST' && operation === 'resize') return this.send(res, { status: 200 });
        if (method === 'POST' && operation === 'exec')
          return this.send(res, { status: 201, body: { Id: this.exec.create(container, await readBody(req)) } });
        if (operation === 'attach') return await this.attach(container, query, req.socket, res);
        if (method === 'GET' && operation === 'stats') {
          return await serveStats(this.options.config, this.options.namespace, container, query, req, res);
        }
        if (method === 'GET' && operation === 'top') return this.send(res, { status: 200, body: await this.exec.top(container, query) });
        throw KubernetesErrors.notServed({ what: `${method} /containers/{id}/${operation}`, why: 'a pod has no such operation' });
      }
      if (kind === 'images' && method === 'GET' && parts[parts.length - 1] === 'json') {
        const name = parts.slice(1, -1).join('/');
        const image = this.options.cluster.imageJson(name);
        if (!image) throw KubernetesErrors.emulatorNotFound({ what: `No such image: ${name}` });
        return this.send(res, { status: 200, body: image });
      }
      if (kind === 'networks' && method === 'GET' && operation === '') {
        const network = this.options.cluster.networkJson(id);
        if (!network) throw KubernetesErrors.emulatorNotFound({ what: `network ${id} not found` });
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
        const session = this.exec.sessions.get(id);
        if (!session) throw KubernetesErrors.noSuchExec({ id });
        if (method === 'GET' && operation === 'json') return this.send(res, { status: 200, body: execJson(session) });
        if (method === 'POST' && operation === 'resize') {
          session.resize?.(Number(query.get('w') ?? 0), Number(query.get('h') ?? 0));
          return this.send(res, { status: 200 });
        }
        if (method === 'POST' && operation === 'start') {
          const body = await readBody(req);
          if (body['Detach'] === true) {
            void this.exec.run(session, undefined);
            return this.send(res, { status: 200 });
          }
          res.writeHead(200, {
            'Content-Type': session.tty ? 'application/vnd.docker.raw-stream' : 'application/vnd.docker.multiplexed-stream',
          });
          return await this.exec.run(session, res);
        }
      }
      throw KubernetesErrors.emulatorNotFound({ what: 'page not found' });
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
        const session = this.exec.sessions.get(id);
        if (!session) throw KubernetesErrors.noSuchExec({ id });
        if (body['Tty'] === true) session.tty = true;
        socket.write(UPGRADE_HEAD);
        return await this.exec.run(session, socket);
      }
      throw KubernetesErrors.emulatorNotFound({ what: 'page not found' });
    } catch (error) {
      const status = isSwarmError(error) ? error.httpStatus : 500;
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
    const status = isSwarmError(error) ? error.httpStatus : 500;
    if (status >= 500) this.options.logger.warn({ err: (error as Error).message }, 'kubernetes: engine emulator call failed');
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
      const attached = () =>
        new Promise<void>((resolve) => {
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
      await this.options.cluster.control.whileAttached(container.podName, attached);
      if (!socket.destroyed) socket.end();
      return;
    }
    const logQuery = new URLSearchParams({ follow: '1', stdout: '1', stderr: '1' });
    // attaching to a running container shows what it prints from now on (docker attach), unless logs=1
    if (query.get('logs') !== '1' && wasRunning) logQuery.set('tail', '0');
    await this.options.cluster.control.whileAttached(container.podName, () =>
      streamLogs(this.options, container, logQuery, undefined, out, true),
    );
  }
}

function seconds(query: URLSearchParams): number | undefined {
  const raw = query.get('t') ?? query.get('timeout');
  if (raw === null || raw === '') return undefined;
  const value = Number(raw);
  return Number.isFinite(value) ? value : undefined;
}
