// The few Docker Engine calls the kubelet makes, over dockerode: image checks and pulls,
// container create/start/stop/inspect/remove, and the stream demultiplexing Docker uses for
// containers without a TTY.
import { PassThrough, Writable, type Readable } from 'node:stream';
import Docker from 'dockerode';

export interface Inspected {
  id: string;
  running: boolean;
  exitCode: number;
  oomKilled: boolean;
  error: string;
  startedAt: string;
  finishedAt: string;
  imageId: string;
  ip: string;
}

const ZERO_TIME = '0001-01-01T00:00:00Z';
/** Docker's RFC 3339 with nanoseconds → the API's whole seconds. */
export const apiTime = (time: string | undefined): string => (!time || time.startsWith('0001-') ? '' : time.replace(/\.\d+Z$/, 'Z'));

/** How long a control call (inspect, create, start, ...) may go unanswered: an engine that is
 * shutting down can accept a request and never answer it, which would stall the pod worker. */
const CONTROL_TIMEOUT_MS = 15_000;

/** Settles with the promise, or rejects once `ms` passed (the call itself is left to finish or hang). */
export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: the engine did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export class EngineRuntime {
  /** For control calls (they time out). */
  private readonly control: Docker;
  /** For streams that may stay quiet for long (events, logs -f, exec, attach, stats, pulls). */
  readonly docker: Docker;

  constructor(engine: { host: string; port: number } | { socketPath: string }) {
    this.docker = new Docker(engine);
    this.control = new Docker({ ...engine, timeout: CONTROL_TIMEOUT_MS });
  }

  async ping(): Promise<boolean> {
    try {
      await this.control.ping();
      return true;
    } catch {
      return false;
    }
  }

  async inspect(id: string): Promise<Inspected | undefined> {
    try {
      const info = await this.control.getContainer(id).inspect();
      return {
        id: info.Id,
        running: info.State.Running,
        exitCode: info.State.ExitCode,
        oomKilled: info.State.OOMKilled,
        error: info.State.Error,
        startedAt: info.State.StartedAt === ZERO_TIME ? '' : info.State.StartedAt,
        finishedAt: info.State.FinishedAt === ZERO_TIME ? '' : info.State.FinishedAt,
        imageId: info.Image,
        ip: (info.NetworkSettings as { IPAddress?: string }).IPAddress ?? '',
      };
    } catch (error) {
      if ((error as { statusCode?: number }).statusCode === 404) return undefined;
      throw error;
    }
  }

  async imagePresent(image: string): Promise<{ id: string; size: number; digests: string[] } | undefined> {
    try {
      const info = await this.control.getImage(image).inspect();
      return { id: info.Id, size: info.Size, digests: info.RepoDigests ?? [] };
    } catch (error) {
      if ((error as { statusCode?: number }).statusCode === 404) return undefined;
      throw error;
    }
  }

  /** Pulls an image; rejects with the engine's message when the pull fails. */
  async pull(image: string): Promise<void> {
    const stream = await within(this.docker.pull(image), CONTROL_TIMEOUT_MS, 'pull');
    await new Promise<void>((resolve, reject) => {
      this.docker.modem.followProgress(stream, (error: Error | null, output: Array<{ error?: string }>) => {
        const failed = error?.message ?? output?.find((line) => line.error)?.error;
        if (failed) reject(new Error(failed));
        else resolve();
      });
    });
  }

  /** Creates a container; one left under the same name by an attempt whose answer was lost is removed first. */
  async create(config: Docker.ContainerCreateOptions): Promise<string> {
    try {
      return (await this.control.createContainer(config)).id;
    } catch (error) {
      if ((error as { statusCode?: number }).statusCode !== 409 || !config.name) throw error;
      await this.remove(config.name);
      return (await this.control.createContainer(config)).id;
    }
  }

  async start(id: string): Promise<void> {
    await this.control.getContainer(id).start();
  }

  /** SIGTERM, then SIGKILL after `graceSeconds`; nothing if it is not running. */
  async stop(id: string, graceSeconds: number): Promise<void> {
    try {
      const seconds = Math.max(0, Math.round(graceSeconds));
      await within(this.docker.getContainer(id).stop({ t: seconds }), seconds * 1000 + CONTROL_TIMEOUT_MS, 'stop');
    } catch (error) {
      const code = (error as { statusCode?: number }).statusCode;
      if (code !== 304 && code !== 404) throw error;
    }
  }

  async remove(id: string): Promise<void> {
    try {
      await this.control.getContainer(id).remove({ force: true, v: true });
    } catch (error) {
      const code = (error as { statusCode?: number }).statusCode;
      if (code !== 404 && code !== 409) throw error;
    }
  }

  async images(): Promise<Docker.ImageInfo[]> {
    return this.control.listImages();
  }

  async listByLabel(label: string): Promise<Docker.ContainerInfo[]> {
    return this.control.listContainers({ all: true, filters: { label: [label] } });
  }

  /** Splits Docker's multiplexed stdout/stderr stream into one text stream, as the kubelet merges them. */
  merged(stream: Readable, tty: boolean): Readable {
    if (tty) return stream;
    const out = new PassThrough();
    const sink = new Writable({
      write: (chunk: Buffer, _encoding, callback) => {
        out.write(chunk);
        callback();
      },
    });
    this.docker.modem.demuxStream(stream, sink, sink);
    stream.on('end', () => out.end());
    stream.on('close', () => out.end());
    stream.on('error', () => out.end());
    out.on('close', () => stream.destroy());
    return out;
  }
}
