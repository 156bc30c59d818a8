// The subset of node-zookeeper-client (which ships no types) this backend uses.
declare module 'node-zookeeper-client' {
  import type { EventEmitter } from 'node:events';

  export interface Stat {
    ephemeralOwner: Buffer;
    version: number;
  }

  export interface WatchEvent {
    getType(): number;
    getPath(): string;
    getName(): string;
  }

  export type Watcher = (event: WatchEvent) => void;

  export interface ZkException extends Error {
    getCode(): number;
  }

  export type Callback<T> = (error: ZkException | null, result: T) => void;

  export interface Client extends EventEmitter {
    connect(): void;
    close(): void;
    getSessionId(): Buffer;
    getSessionTimeout(): number;
    create(path: string, data: Buffer, mode: number, callback: Callback<string>): void;
    remove(path: string, version: number, callback: Callback<void>): void;
    exists(path: string, watcher: Watcher | undefined, callback: Callback<Stat | null>): void;
    getChildren(path: string, watcher: Watcher | undefined, callback: Callback<string[]>): void;
    getData(path: string, watcher: Watcher | undefined, callback: Callback<Buffer | null>): void;
    setData(path: string, data: Buffer, version: number, callback: Callback<Stat>): void;
    mkdirp(path: string, callback: Callback<string>): void;
  }

  export interface ClientOptions {
    sessionTimeout?: number;
    spinDelay?: number;
    retries?: number;
  }

  interface ZooKeeperModule {
    createClient(connectionString: string, options?: ClientOptions): Client;
    CreateMode: { PERSISTENT: number; EPHEMERAL: number; PERSISTENT_SEQUENTIAL: number; EPHEMERAL_SEQUENTIAL: number };
    Exception: { NO_NODE: number; NODE_EXISTS: number; NOT_EMPTY: number; CONNECTION_LOSS: number; SESSION_EXPIRED: number };
  }

  const zookeeper: ZooKeeperModule;
  export default zookeeper;
}
