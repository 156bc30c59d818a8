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

export class EngineRuntime {
  readonly docker: Docker;

  constructor(engine: { host: string; port: number } | { socketPath: string }) {
    this.docker = new Docker(engine);
  }

  async ping(): Promise<boolean> {
    try {
      await this.docker.ping();
      return true;
    } catch {
      return false;
    }
  }

  async inspect(id: string): Promise<Inspected | undefined> {
    try {
      const info = await this.docker.getContainer(id).inspect();
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
      const info = await this.docker.getImage(image).inspect();
      return { id: info.Id, size: info.Size, digests: info.RepoDigests ?? [] };
    } catch (error) {
      if ((error as { statusCode?: number }).statusCode === 404) return undefined;
      throw error;
    }
  }

  /** Pulls an image; rejects with the engine's message when the pull fails. */
  async pull(image: string): Promise<void> {
    const stream = await this.docker.pull(image);
    await new Promise<void>((resolve, reject) => {
      this.docker.modem.followProgress(stream, (error: Error | null, output: Array<{ error?: string }>) => {
        const failed = error?.message ?? output?.find((line) => line.error)?.error;
        if (failed) reject(new Error(failed));
        else resolve();
      });
    });
  }

  async create(config: Docker.ContainerCreateOptions): Promise<string> {
    const container = await this.docker.createContainer(config);
    return container.id;
  }

  async start(id: string): Promise<void> {
    await this.docker.getContainer(id).start();
  }

  /** SIGTERM, then SIGKILL after `graceSeconds`; nothing if it is not running. */
  async stop(id: string, graceSeconds: number): Promise<void> {
    try {
      await this.docker.getContainer(id).stop({ t: Math.max(0, Math.round(graceSeconds)) });
    } catch (error) {
      const code = (error as { statusCode?: number }).statusCode;
      if (code !== 304 && code !== 404) throw error;
    }
  }

  async remove(id: string): Promise<void> {
    try {
      await this.docker.getContainer(id).remove({ force: true, v: true });
    } catch (error) {
      const code = (error as { statusCode?: number }).statusCode;
      if (code !== 404 && code !== 409) throw error;
    }
  }

  async listByLabel(label: string): Promise<Docker.ContainerInfo[]> {
    return this.docker.listContainers({ all: true, filters: { label: [label] } });
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
