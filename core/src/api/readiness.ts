/** One condition `/_swarm/readyz` reports: met or not, and why. */
export interface ReadinessCheck {
  readonly name: string;
  readonly ok: boolean;
  /** What was seen (`primary`, `replica of 10.0.0.2:2375`) or, when not met, what is missing. */
  readonly reason: string;
}

/** The checks a manager is ready by, asked on every `/_swarm/readyz`. */
export type ReadinessProbe = () => readonly ReadinessCheck[];
