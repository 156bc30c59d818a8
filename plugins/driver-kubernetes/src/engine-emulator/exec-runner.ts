import type { Socket } from 'node:net';
import * as k8s from '@kubernetes/client-node';
import { KubernetesErrors } from '../errors.js';
import type { PodContainer } from '../pod-container.js';
import { ExecSessions, exitCodeOf, type ExecSession } from './exec-sessions.js';
import { framedWriter } from './frames.js';

/** Where an exec's output goes: the hijacked socket, a streamed response, or a buffer. */
export type ExecOutput = { write(chunk: Buffer): unknown; end(): unknown; readonly destroyed?: boolean };

/**
 * Docker's exec instances over the API server's exec (WebSocket, `v5.channel.k8s.io`): create,
 * run with the client's streams, inspect, resize; and what other docker verbs need run inside a
 * container (`ps` for top, `kill -SIG 1` for signals other than KILL).
 */
export class ExecRunner {
  readonly sessions = new ExecSessions();

  constructor(
    private readonly config: k8s.KubeConfig,
    private readonly namespace: string,
  ) {}

  /** `POST /containers/{id}/exec`: an exec instance, refused for options the exec API has no room for. */
  create(container: PodContainer, body: Record<string, unknown>): string {
    if (container.state !== 'running') throw KubernetesErrors.notRunning({ id: container.id });
    const cmd = Array.isArray(body['Cmd']) ? (body['Cmd'] as unknown[]).map(String) : [];
    if (cmd.length === 0) throw KubernetesErrors.invalidBody({ why: 'No exec command specified' });
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
    const session = this.sessions.create({
      containerId: container.id,
      podName: container.podName,
      cmd,
      tty: body['Tty'] === true,
      attachStdin: body['AttachStdin'] === true,
      attachStdout: body['AttachStdout'] !== false,
      attachStderr: body['AttachStderr'] !== false,
    });
    return session.id;
  }

  /** Runs an exec through the API server's WebSocket exec; `out` gets its output (and gives stdin, when a socket). */
  async run(session: ExecSession, out: ExecOutput | undefined, raw = false): Promise<void> {
    session.running = true;
    const stdout = out && session.attachStdout ? resizable(framedWriter(out, 1, session.tty || raw)) : null;
    const stderr = out && session.attachStderr ? framedWriter(out, 2, session.tty) : null;
    const stdin = out && session.attachStdin && 'unshift' in out ? (out as Socket) : null;
    if (stdout && session.tty) session.resize = (width, height) => stdout.resizeTo(width, height);
    const finished = new Promise<void>((resolve) => {
      new k8s.Exec(this.config)
        .exec(this.namespace, session.podName, 'container', session.cmd, stdout, stderr, stdin, session.tty, (status) => {
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
   * `docker top`: the container's `ps` run through the exec API (the API server has no process
   * list). An image without `ps` gets a 501 saying so.
   */
  async top(container: PodContainer, query: URLSearchParams): Promise<{ Titles: string[]; Processes: string[][] }> {
    if (container.state !== 'running') throw KubernetesErrors.notRunning({ id: container.id });
    const args = (query.get('ps_args') ?? '').split(/\s+/).filter(Boolean);
    const chunks: Buffer[] = [];
    const sink: ExecOutput = { write: (chunk: Buffer) => chunks.push(chunk), end: () => undefined, destroyed: false };
    const session = this.sessions.create({
      containerId: container.id,
      podName: container.podName,
      cmd: ['ps', ...args],
      tty: false,
      attachStdin: false,
      attachStdout: true,
      attachStderr: false,
    });
    await this.run(session, sink, true);
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
  async signal(container: PodContainer, signal: string): Promise<void> {
    const session = this.sessions.create({
      containerId: container.id,
      podName: container.podName,
      cmd: ['kill', `-${signal}`, '1'],
      tty: false,
      attachStdin: false,
      attachStdout: false,
      attachStderr: false,
    });
    await this.run(session, undefined);
    if (session.exitCode !== 0) {
      throw KubernetesErrors.apiRefused({
        status: 500,
        what: `docker kill -s ${signal}`,
        message: `kill inside the container exited with ${session.exitCode}`,
      });
    }
  }
}

export function execJson(session: ExecSession): Record<string, unknown> {
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
