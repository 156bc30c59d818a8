import { randomBytes } from 'node:crypto';
import type { EngineState, Reply, Route, RouteContext } from '@swarm/core/hollow';

// What the soak needs from an engine and hollow engines do not answer: `logs`, `exec` and a
// non-upgraded `attach`. They are the manager's streaming transports (framed pipe, raw stream),
// the paths where a leaked socket or listener would hide, so the soak must exercise them.

const RAW_STREAM = 'application/vnd.docker.raw-stream';
/** Exec instances an engine remembers; the oldest go first, so the soak's own engines stay bounded. */
const MAX_EXECS = 200;

interface Exec {
  id: string;
  containerId: string;
  running: boolean;
  exitCode: number | null;
}

const execsOf = new WeakMap<EngineState, Map<string, Exec>>();

function execs(state: EngineState): Map<string, Exec> {
  let found = execsOf.get(state);
  if (found === undefined) {
    found = new Map();
    execsOf.set(state, found);
  }
  return found;
}

/** One frame of Docker's multiplexed stream (stdout). */
function stdoutFrame(text: string): Buffer {
  const payload = Buffer.from(text);
  const header = Buffer.alloc(8);
  header[0] = 1;
  header.writeUInt32BE(payload.length, 4);
  return Buffer.concat([header, payload]);
}

const param = (context: RouteContext): string => decodeURIComponent(context.params[0] ?? '');

/** Answers like dockerd's hijacked streams: the stream type, then frames until the end (no chunking). */
function rawAnswer({ res }: RouteContext, frames: readonly string[]): undefined {
  res.useChunkedEncodingByDefault = false;
  res.writeHead(200, { 'Content-Type': RAW_STREAM, Connection: 'close' });
  for (const frame of frames) res.write(stdoutFrame(frame));
  res.end();
  return undefined;
}

function logs(context: RouteContext): undefined {
  const container = context.state.container(param(context));
  context.res.writeHead(200, { 'Content-Type': RAW_STREAM });
  context.res.write(stdoutFrame(`${container.name} started\n`));
  context.res.end(stdoutFrame(`${container.name} is running\n`));
  return undefined;
}

function execCreate(context: RouteContext): Reply {
  const container = context.state.container(param(context));
  if (container.state !== 'running') {
    return { status: 409, body: { message: `Container ${container.id} is not running` } };
  }
  const table = execs(context.state);
  if (table.size >= MAX_EXECS) table.delete(table.keys().next().value ?? '');
  const exec: Exec = { id: randomBytes(32).toString('hex'), containerId: container.id, running: false, exitCode: null };
  table.set(exec.id, exec);
  return { status: 201, body: { Id: exec.id } };
}

function execOf(context: RouteContext): Exec | undefined {
  return execs(context.state).get(param(context));
}

const noSuchExec = (context: RouteContext): Reply => ({ status: 404, body: { message: `No such exec instance: ${param(context)}` } });

function execStart(context: RouteContext): Reply | undefined {
  const exec = execOf(context);
  if (exec === undefined) return noSuchExec(context);
  exec.exitCode = 0;
  return rawAnswer(context, ['exec output\n']);
}

function execInspect(context: RouteContext): Reply {
  const exec = execOf(context);
  if (exec === undefined) return noSuchExec(context);
  return {
    status: 200,
    body: {
      ID: exec.id,
      Running: exec.running,
      ExitCode: exec.exitCode,
      ContainerID: exec.containerId,
      ProcessConfig: { tty: false, entrypoint: 'true', arguments: [], privileged: false },
      OpenStdin: false,
      OpenStdout: true,
      OpenStderr: true,
      CanRemove: false,
      DetachKeys: '',
      Pid: 0,
    },
  };
}

function attach(context: RouteContext): undefined {
  const container = context.state.container(param(context));
  return rawAnswer(context, [`attached to ${container.name}\n`]);
}

const ID = '([^/]+)';

/** The routes to give `HollowEngine` (`routes` option) for the soak. */
export const STREAM_ROUTES: readonly Route[] = [
  { method: 'GET', pattern: new RegExp(`^/containers/${ID}/logs$`), kind: 'inspect', handle: logs },
  { method: 'POST', pattern: new RegExp(`^/containers/${ID}/exec$`), kind: 'inspect', handle: execCreate },
  { method: 'POST', pattern: new RegExp(`^/exec/${ID}/start$`), kind: 'inspect', handle: execStart },
  { method: 'GET', pattern: new RegExp(`^/exec/${ID}/json$`), kind: 'inspect', handle: execInspect },
  { method: 'POST', pattern: new RegExp(`^/containers/${ID}/attach$`), kind: 'inspect', handle: attach },
];
