// What the API server asks of a node's kubelet: container logs, exec and attach streams, and
// resource usage for metrics.k8s.io. Engine-backed kubelets answer from their Docker engine;
// hollow ones have nothing to stream.
import type { Readable, Writable } from 'node:stream';
import type { KObject } from '../store/store.js';

export interface LogOptions {
  container: string;
  follow: boolean;
  previous: boolean;
  timestamps: boolean;
  tailLines?: number;
  sinceSeconds?: number;
  sinceTime?: string;
  limitBytes?: number;
}

export interface StreamIO {
  stdin?: Readable;
  stdout?: Writable;
  stderr?: Writable;
  tty: boolean;
  /** Terminal size changes from the client (channel 4). */
  onResize(listener: (size: { width: number; height: number }) => void): void;
  /** The client went away. */
  onClose(listener: () => void): void;
}

export interface UsageReading {
  /** CPU in nano-cores. */
  cpuNanoCores: number;
  memoryBytes: number;
}

export interface PodAgent {
  /** A stream of the container's log text; rejects with an ApiError a client should see. */
  logs(pod: KObject, options: LogOptions): Promise<Readable>;
  /** Runs a command in a container; resolves with its exit code. */
  exec(pod: KObject, container: string, command: string[], io: StreamIO): Promise<number>;
  /** Attaches to a container's main process until it ends or the client goes. */
  attach(pod: KObject, container: string, io: StreamIO): Promise<void>;
  containerUsage(pod: KObject): Promise<Array<{ name: string; usage: UsageReading }>>;
  nodeUsage(): Promise<UsageReading>;
}

export interface NodeAgents {
  agentFor(nodeName: string): PodAgent | undefined;
}
