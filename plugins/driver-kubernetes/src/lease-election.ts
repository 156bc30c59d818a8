import * as k8s from '@kubernetes/client-node';
import type { Campaign, CampaignHandlers, LeaderElection, LeaderFollower } from '@swarm/plugin-sdk';
import { KubernetesErrors } from './errors.js';
import { apiError, apiStatus } from './kube-api.js';
import { watchLease } from './lease-watch.js';

interface LeaseState {
  holder: string | undefined;
  /** When the holder's claim runs out (its last renewal plus the lease duration). */
  expiresAt: number;
  transitions: number;
  object: k8s.V1Lease | undefined;
}

/**
 * A MicroTime read back from the server, for writing again: client-node hands it over as the
 * server's text (six digits), which is kept as a V1MicroTime of the same instant.
 */
function microTime(read: k8s.V1MicroTime | string | undefined): k8s.V1MicroTime | undefined {
  if (read === undefined) return undefined;
  const date = new k8s.V1MicroTime(read instanceof Date ? read.getTime() : Date.parse(read));
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** A Lease name for a store key (`docker/swarm/leader` → `swarm-docker-swarm-leader`). */
function leaseName(key: string): string {
  return `swarm-${key
    .replace(/[^a-z0-9]+/gi, '-')
    .replace(/^-+|-+$/g, '')
    .toLowerCase()}`.slice(0, 63);
}

/**
 * Leader election on a coordination.k8s.io Lease, as client-go's leaderelection does it: the
 * holder renews `renewTime` every third of the TTL; a candidate takes the Lease only once the
 * holder's `renewTime + leaseDurationSeconds` has passed, and every write carries the
 * resourceVersion it read, so two candidates can never both win. A holder that has not renewed
 * within the TTL (the API server unreachable, a conflict) steps down at once.
 */
export class LeaseElection implements LeaderElection {
  readonly key: string;
  private readonly api: k8s.CoordinationV1Api;
  private readonly name: string;

  constructor(
    private readonly config: k8s.KubeConfig,
    private readonly options: { namespace: string; key: string; ttlSeconds: number },
  ) {
    this.api = config.makeApiClient(k8s.CoordinationV1Api);
    this.name = leaseName(options.key);
    this.key = `${options.namespace}/leases/${this.name}`;
  }

  private get periodMs(): number {
    return Math.max(200, (this.options.ttlSeconds * 1000) / 3);
  }

  private async read(): Promise<LeaseState> {
    try {
      const lease = await this.api.readNamespacedLease({ name: this.name, namespace: this.options.namespace });
      const spec = lease.spec ?? {};
      const renewed = spec.renewTime ? new Date(spec.renewTime).getTime() : 0;
      return {
        holder: spec.holderIdentity || undefined,
        expiresAt: renewed + (spec.leaseDurationSeconds ?? this.options.ttlSeconds) * 1000,
        transitions: spec.leaseTransitions ?? 0,
        object: lease,
      };
    } catch (error) {
      if (apiStatus(error) === 404) return { holder: undefined, expiresAt: 0, transitions: 0, object: undefined };
      throw apiError(error, `read lease ${this.name}`, 'the API server');
    }
  }

  /** Writes this candidate as the holder, from the state just read; false when another write won. */
  private async claim(state: LeaseState, value: string, renewal: boolean): Promise<boolean> {
    // MicroTime fields are parsed with exactly six fractional digits (apimachinery's micro_time.go):
    // client-node's V1MicroTime writes them so, a plain Date writes three and the write is refused.
    const now = new k8s.V1MicroTime();
    const spec: k8s.V1LeaseSpec = {
      holderIdentity: value,
      leaseDurationSeconds: this.options.ttlSeconds,
      renewTime: now,
      acquireTime: renewal ? (microTime(state.object?.spec?.acquireTime) ?? now) : now,
      leaseTransitions: renewal ? state.transitions : state.transitions + (state.holder && state.holder !== value ? 1 : 0),
    };
    try {
      if (!state.object) {
        await this.api.createNamespacedLease({ namespace: this.options.namespace, body: { metadata: { name: this.name }, spec } });
      } else {
        await this.api.replaceNamespacedLease({
          name: this.name,
          namespace: this.options.namespace,
          body: { metadata: { name: this.name, resourceVersion: state.object.metadata?.resourceVersion }, spec },
        });
      }
      return true;
    } catch (error) {
      const status = apiStatus(error);
      if (status === 409) return false; // another candidate wrote first
      throw apiError(error, `write lease ${this.name}`, 'the API server');
    }
  }

  campaign(value: string, handlers: CampaignHandlers): Campaign {
    let leader = false;
    let stopped = false;
    let lastRenewal = 0;
    let timer: NodeJS.Timeout | undefined;
    const lose = (reason: Error) => {
      if (!leader) return;
      leader = false;
      handlers.onLost(reason);
    };
    const round = async (): Promise<void> => {
      try {
        const state = await this.read();
        if (stopped) return;
        const mine = state.holder === value;
        if (mine || !state.holder || state.expiresAt <= Date.now()) {
          if (await this.claim(state, value, mine)) {
            lastRenewal = Date.now();
            if (!leader && !stopped) {
              leader = true;
              handlers.onElected();
            }
          } else {
            lose(KubernetesErrors.leaseLost({ lease: this.key, why: 'another manager wrote the lease first' }));
          }
        } else {
          lose(KubernetesErrors.leaseLost({ lease: this.key, why: `held by ${state.holder}` }));
        }
      } catch (error) {
        handlers.onError?.(error as Error);
        // unsure whether the lease is still ours: step down before it could have run out
        if (leader && Date.now() - lastRenewal >= this.options.ttlSeconds * 1000 - this.periodMs) {
          lose(KubernetesErrors.leaseLost({ lease: this.key, why: (error as Error).message }));
        }
      }
    };
    let running = false;
    const loop = async (): Promise<void> => {
      if (stopped || running) return;
      running = true;
      clearTimeout(timer);
      try {
        await round();
      } finally {
        running = false;
      }
      if (!stopped) timer = setTimeout(() => void loop(), this.periodMs);
    };
    void loop();
    // a released or expired-and-rewritten lease is taken at once, not at the next poll
    const watch = watchLease(
      this.config,
      this.options.namespace,
      this.name,
      () => {
        if (!leader) void loop();
      },
      (error) => handlers.onWarning?.(`cannot watch lease ${this.key}, polling every ${Math.round(this.periodMs)} ms: ${error.message}`),
    );
    return {
      isLeader: () => leader,
      resign: async () => {
        stopped = true;
        watch.stop();
        clearTimeout(timer);
        if (!leader) return;
        leader = false;
        // hand the lease back so another manager takes over at once, not after the TTL
        const state = await this.read().catch(() => undefined);
        if (state?.object && state.holder === value) {
          await this.api
            .replaceNamespacedLease({
              name: this.name,
              namespace: this.options.namespace,
              body: {
                metadata: { name: this.name, resourceVersion: state.object.metadata?.resourceVersion },
                spec: {
                  ...state.object.spec,
                  holderIdentity: '',
                  leaseDurationSeconds: 1,
                  renewTime: new k8s.V1MicroTime(),
                  acquireTime: microTime(state.object.spec?.acquireTime),
                },
              },
            })
            .catch(() => undefined);
        }
      },
    };
  }

  follow(onLeader: (leader: string | undefined) => void, onError: (error: Error) => void): LeaderFollower {
    let stopped = false;
    let last: string | undefined | null = null;
    let timer: NodeJS.Timeout | undefined;
    let polling = false;
    const poll = async (): Promise<void> => {
      if (stopped || polling) return;
      polling = true;
      clearTimeout(timer);
      try {
        const state = await this.read();
        const current = state.holder && state.expiresAt > Date.now() ? state.holder : undefined;
        if (current !== last) {
          last = current;
          onLeader(current);
        }
      } catch (error) {
        onError(error as Error);
      }
      polling = false;
      if (!stopped) timer = setTimeout(() => void poll(), this.periodMs);
    };
    void poll();
    const watch = watchLease(
      this.config,
      this.options.namespace,
      this.name,
      () => void poll(),
      () => undefined,
    );
    return {
      stop: () => {
        stopped = true;
        watch.stop();
        clearTimeout(timer);
      },
    };
  }
}
