/** A fault the soak injected, from when it began to when the cluster was whole again. */
export interface Fault {
  kind: 'failover' | 'engine-down' | 'entry-removed';
  /** Engine index (engine faults) */
  engine?: number;
  detail: string;
  start: number;
  /** Undefined while the fault lasts. */
  end?: number;
}

/** A request that did not get the answer it should have. */
export interface Failure {
  at: number;
  op: string;
  manager: 'A' | 'B';
  status: number;
  message: string;
  /** The engine that held the container the request was about, when known. */
  engine?: number;
}

export type FailureClass = Fault['kind'] | 'unexplained';

/** The manager learns of an engine going or coming back on its next heartbeat or refresh: allow for that lag. */
const ENGINE_LAG_MS = 30_000;
/**
 * Requests forwarded or in flight when the roles change, and the new primary catching up: it
 * answers 404 for containers the old primary created in its last seconds until it has refreshed
 * their engines (seen up to ~20 s after the takeover; results/soak.md).
 */
const FAILOVER_LAG_MS = 30_000;

/** Every fault the soak injects, and which of them explains a failed request. */
export class FaultLog {
  readonly faults: Fault[] = [];

  begin(fault: Omit<Fault, 'start'>): Fault {
    const started: Fault = { ...fault, start: Date.now() };
    this.faults.push(started);
    return started;
  }

  end(fault: Fault): void {
    fault.end = Date.now();
  }

  private covers(fault: Fault, at: number, lagMs: number): boolean {
    return fault.start <= at && at <= (fault.end ?? Infinity) + lagMs;
  }

  /**
   * A failure is explained by a failover under way (any request: the roles were changing), or by
   * an engine fault on the engine that held its container or that its error names. Anything else
   * is unexplained, and fails the soak.
   */
  classify(failure: Failure, engineNamed: number | undefined): FailureClass {
    for (const fault of this.faults) {
      if (fault.kind === 'failover' && this.covers(fault, failure.at, FAILOVER_LAG_MS)) return 'failover';
    }
    for (const fault of this.faults) {
      if (fault.kind === 'failover') continue;
      const engine = fault.engine;
      if ((engine === failure.engine || engine === engineNamed) && this.covers(fault, failure.at, ENGINE_LAG_MS)) return fault.kind;
    }
    return 'unexplained';
  }
}
