// The part of node-zookeeper-client (which ships no types) this driver uses.
declare module 'node-zookeeper-client' {
  import type { EventEmitter } from 'node:events';

  export interface ZkError extends Error {
    getCode(): number;
  }
  export interface ZkStat {
    version: number;
  }
  export interface ZkEvent {
    getType(): number;
    getName(): string;
    getPath(): string;
  }
  export interface ZkState {
    getName(): string;
    getCode(): number;
  }
  export type Watcher = (event: ZkEvent) => void;

  export interface Client extends EventEmitter {
    connect(): void;
    close(): void;
    addAuthInfo(scheme: string, auth: Buffer): void;
    getState(): ZkState;
    getChildren(
      path: string,
      watcher: Watcher | undefined,
      callback: (error: ZkError | null, children: string[], stat: ZkStat) => void,
    ): void;
    getData(
      path: string,
      watcher: Watcher | undefined,
      callback: (error: ZkError | null, data: Buffer | undefined, stat: ZkStat) => void,
    ): void;
    setData(path: string, data: Buffer, version: number, callback: (error: ZkError | null, stat: ZkStat) => void): void;
    mkdirp(path: string, data: Buffer, acls: unknown[], mode: number, callback: (error: ZkError | null, path: string) => void): void;
    create(path: string, data: Buffer, acls: unknown[], mode: number, callback: (error: ZkError | null, path: string) => void): void;
    remove(path: string, version: number, callback: (error: ZkError | null) => void): void;
  }

  export interface ClientOptions {
    sessionTimeout?: number;
    spinDelay?: number;
    retries?: number;
  }

  export function createClient(connectionString: string, options?: ClientOptions): Client;

  export const CreateMode: { PERSISTENT: number; EPHEMERAL: number; PERSISTENT_SEQUENTIAL: number; EPHEMERAL_SEQUENTIAL: number };
  export const ACL: { OPEN_ACL_UNSAFE: unknown[] };
  export const Exception: { NO_NODE: number; NO_AUTH: number; NODE_EXISTS: number };
  export const State: { SYNC_CONNECTED: ZkState; DISCONNECTED: ZkState; EXPIRED: ZkState };

  const zookeeper: {
    createClient: typeof createClient;
    CreateMode: typeof CreateMode;
    ACL: typeof ACL;
    Exception: typeof Exception;
    State: typeof State;
  };
  export default zookeeper;
}
