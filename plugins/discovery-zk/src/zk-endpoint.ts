/** How a ZooKeeper session reaches the store: directly, or through loopback TLS bridges. */
export interface ZkEndpoint {
  /** What the client dials (`h1:p,h2:p`). */
  connectionString(): Promise<string>;
  /** The store servers as the user named them, for messages. */
  readonly description: string;
  /** Hears why a connection attempt failed when the transport knows (a TLS handshake error). */
  onFailure(sink: (error: Error) => void): () => void;
  close(): void;
}

export function plainEndpoint(hosts: readonly string[]): ZkEndpoint {
  const connection = hosts.join(',');
  return {
    connectionString: () => Promise.resolve(connection),
    description: connection,
    onFailure: () => () => undefined,
    close: () => undefined,
  };
}
