import { randomHexId } from './ids.js';
import { HollowEngine } from './engine.js';
import type { DelayOption } from './default-delays.js';
import type { CreateBody } from './model.js';

export interface HollowClusterOptions {
  count: number;
  /** Running containers each engine holds from the start (no events: they predate the engine). */
  containersPerEngine?: number;
  delayMs?: DelayOption;
  /** Index of the first engine's address slot, so two clusters in one process never collide. */
  firstSlot?: number;
  /** Engine labels: one list for all, or per engine index. */
  labels?: readonly string[] | ((index: number) => readonly string[]);
  ncpu?: number;
  memTotal?: number;
  /** Listen on a free port of each slot address instead of 2375/24000+ (tests that must never collide). */
  ephemeralPorts?: boolean;
  /**
   * Every engine on this one address, each on a free port, instead of the slot addresses: macOS
   * and some containers answer on 127.0.0.1 only, not on the rest of 127.0.0.0/8.
   */
  host?: string;
  /**
   * With `host`: engine i listens on `firstPort + i` instead of a free port, so that a sandbox's
   * engines keep their addresses from one run to the next.
   */
  firstPort?: number;
  /** Engine names are `<namePrefix><firstIndex + index>`; default `hollow`. */
  namePrefix?: string;
  /** Number in the first engine's name (default 0), so engines split over processes keep distinct names. */
  firstIndex?: number;
}

export interface HollowCluster {
  engines: HollowEngine[];
  /** `host:port,host:port,...`, for `nodes://` discovery. */
  addrs: string;
  stop(): Promise<void>;
  /** Requests answered by all engines together, by route. */
  calls(): Record<string, number>;
}

/** Addresses 127.0.2.0 to 127.0.9.255 (port 2375), then the same addresses on ports 24000+. */
const ADDRESSES_PER_PORT = 8 * 256;

export function slotAddress(slot: number): { host: string; port: number } {
  const withinPort = slot % ADDRESSES_PER_PORT;
  const round = Math.floor(slot / ADDRESSES_PER_PORT);
  const host = `127.0.${2 + Math.floor(withinPort / 256)}.${withinPort % 256}`;
  return { host, port: round === 0 ? 2375 : 24000 + round - 1 };
}

const PRELOADED_BODY: CreateBody = { Image: 'busybox:local', Cmd: ['sleep', '86400'], Labels: {}, HostConfig: { NetworkMode: 'default' } };

function preload(engine: HollowEngine, count: number): void {
  const image = engine.state.image('busybox:local');
  if (image === undefined) return;
  const startedMs = Date.now() - 60_000;
  for (let k = 0; k < count; k++) {
    const container = engine.state.add(randomHexId(), `${engine.name}-c${k}`, PRELOADED_BODY, image, startedMs);
    engine.state.markRunning(container, startedMs);
  }
}

function enginePort(options: HollowClusterOptions, index: number, slotPort: number): number {
  if (options.host !== undefined && options.firstPort !== undefined) return options.firstPort + index;
  return options.ephemeralPorts || options.host !== undefined ? 0 : slotPort;
}

/** Starts `count` hollow engines, each on its own loopback address, in this process. */
export async function startHollowCluster(options: HollowClusterOptions): Promise<HollowCluster> {
  const engines: HollowEngine[] = [];
  const first = options.firstSlot ?? 0;
  const prefix = options.namePrefix ?? 'hollow';
  const labelsFor = (index: number): readonly string[] =>
    typeof options.labels === 'function' ? options.labels((options.firstIndex ?? 0) + index) : (options.labels ?? []);
  const stop = async (): Promise<void> => {
    await Promise.all(engines.map((engine) => engine.stop()));
  };
  try {
    for (let index = 0; index < options.count; index++) {
      const slot = slotAddress(first + index);
      const engine = new HollowEngine({
        name: `${prefix}${(options.firstIndex ?? 0) + index}`,
        host: options.host ?? slot.host,
        port: enginePort(options, index, slot.port),
        labels: labelsFor(index),
        ...(options.delayMs === undefined ? {} : { delayMs: options.delayMs }),
        ...(options.ncpu === undefined ? {} : { ncpu: options.ncpu }),
        ...(options.memTotal === undefined ? {} : { memTotal: options.memTotal }),
      });
      engines.push(await engine.start());
      preload(engine, options.containersPerEngine ?? 0);
    }
  } catch (error) {
    await stop();
    throw error;
  }
  const calls = (): Record<string, number> => {
    const total: Record<string, number> = {};
    for (const engine of engines) for (const [route, count] of engine.calls) total[route] = (total[route] ?? 0) + count;
    return total;
  };
  return { engines, addrs: engines.map((engine) => engine.addr).join(','), stop, calls };
}
