import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { HollowEngine } from '@swarm/core/hollow';
import { STREAM_ROUTES } from './engine-streams.js';

/** Start, stop and start (flap) work on one engine at a time; the flap is only as fast as these. */
const DELAYS = { start: 20, stop: 20, kill: 20 } as const;
const PRELOADED = { Image: 'busybox:local', Cmd: ['sleep', '86400'], Labels: {}, HostConfig: { NetworkMode: 'default' } };

/** A free port on 127.0.0.1, kept by the engine across flaps so it comes back where discovery says it is. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0 }, () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

/**
 * The soak's hollow engines, in the soak's own process: their state is what `docker ps` must
 * agree with at the end, and which engine holds a container explains a failed request on it.
 */
export class Fleet {
  readonly engines: HollowEngine[] = [];
  private readonly down = new Set<number>();

  static async start(count: number, containersEach: number): Promise<Fleet> {
    const fleet = new Fleet();
    for (let index = 0; index < count; index++) {
      const engine = new HollowEngine({
        name: `soak${index}`,
        host: '127.0.0.1',
        port: await freePort(),
        delayMs: DELAYS,
        routes: STREAM_ROUTES,
      });
      fleet.engines.push(await engine.start());
      const image = engine.state.image('busybox:local');
      for (let k = 0; k < containersEach && image !== undefined; k++) {
        const container = engine.state.add(randomBytes(32).toString('hex'), `soak${index}-c${k}`, PRELOADED, image, Date.now() - 60_000);
        engine.state.markRunning(container, Date.now() - 60_000);
      }
    }
    return fleet;
  }

  addr(index: number): string {
    return this.engines[index]!.addr;
  }

  isDown(index: number): boolean {
    return this.down.has(index);
  }

  /** The index of the engine that holds container `id` (full ID), if any. */
  engineOf(id: string): number | undefined {
    const index = this.engines.findIndex((engine) => engine.state.containers.has(id));
    return index === -1 ? undefined : index;
  }

  /** The engine index named in an error text (`soak17` or its `127.0.0.1:port`), if one is. */
  engineNamedIn(text: string): number | undefined {
    const byName = /\bsoak(\d+)\b/.exec(text);
    if (byName) return Number(byName[1]);
    const index = this.engines.findIndex((engine) => text.includes(engine.addr));
    return index === -1 ? undefined : index;
  }

  async stopEngine(index: number): Promise<void> {
    this.down.add(index);
    await this.engines[index]!.stop();
  }

  /** Listens again on the same port; retried while something else holds it for a moment. */
  async restartEngine(index: number): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        await this.engines[index]!.start();
        this.down.delete(index);
        return;
      } catch (error) {
        if (attempt >= 30) throw error;
        await sleep(1000);
      }
    }
  }

  /** Every container ID the engines hold. */
  containerIds(): Set<string> {
    const ids = new Set<string>();
    for (const engine of this.engines) for (const id of engine.state.containers.keys()) ids.add(id);
    return ids;
  }

  async stop(): Promise<void> {
    await Promise.all(this.engines.map((engine, index) => (this.down.has(index) ? undefined : engine.stop())));
  }
}
