/** What makes one hollow engine distinct from the others in the same process. */
export interface EngineIdentity {
  readonly name: string;
  readonly id: string;
  /** The loopback address it listens on, also the address published ports bind to. */
  readonly host: string;
  /** Known once the engine listens (port 0 picks one). */
  port: number;
  readonly ncpu: number;
  /** Bytes. */
  readonly memTotal: number;
  /** `key=value` engine labels, as `dockerd --label`. */
  readonly labels: readonly string[];
}
