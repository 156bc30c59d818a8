import { isSwarmError } from '@swarm/plugin-sdk';
import {
  ANONYMOUS_USER,
  UNAUTHENTICATED_GROUP,
  isNoOpinion,
  type AccessObject,
  type AccessRequest,
  type AdmissionController,
  type AdmissionRequest,
  type AuthenticationRequest,
  type Authenticator,
  type Authorizer,
  type Caller,
  type PlacementConstraint,
  type Visibility,
  type WireResponse,
} from '@swarm/plugin-sdk/access';
import type { ContainerConfig } from '@swarm/plugin-sdk/docker';
import { CoreErrors } from '../errors.js';
import { seesEach, type ListVisibility } from '../plugins/list-visibility.js';

/** A configured access plugin: the config entry's name (`rules`, `docker`) and the plugin it built. */
export interface Named<T> {
  readonly name: string;
  readonly plugin: T;
}

export interface AccessControlParts {
  readonly authenticators: readonly Named<Authenticator>[];
  readonly authorizers: readonly Named<Authorizer>[];
  readonly admission: readonly Named<AdmissionController>[];
}

/** Which plugin decided, by which rule, and why: what the audit log records. */
export interface DecisionRecord {
  readonly allowed: boolean;
  readonly plugin?: string;
  readonly rule?: string;
  readonly reason?: string;
}

export const ANONYMOUS: Caller = Object.freeze({ user: ANONYMOUS_USER, groups: Object.freeze([UNAUTHENTICATED_GROUP]), method: '' });

const SEES_ALL: Visibility = { sees: () => true, everything: true };

/**
 * A plugin that throws denies: access control fails closed. Its own coded errors pass as they are
 * (a Docker AuthZ plugin that cannot be reached has the engine's text); anything else becomes
 * `authz "rules" failed: ...`.
 */
async function guarded<T>(kind: string, name: string, call: () => T | Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (isSwarmError(error)) throw error;
    throw CoreErrors.accessPluginFailed({ kind, name, reason: error instanceof Error ? error.message : String(error) }, { cause: error });
  }
}

/** Decision that lets the request through, with what authorizers asked of its placement. */
export interface Allowed {
  readonly placement: readonly PlacementConstraint[];
  readonly record: DecisionRecord;
}

/**
 * The host's side of the access plugin kinds: asks the authenticators who calls, every authorizer
 * whether they may (all must allow, in order, as dockerd chains its plugins), and the admission
 * controllers what a create may run.
 */
export class AccessControl {
  private readonly reviewers: readonly Named<Authorizer>[];
  private readonly scopers: readonly Named<Authorizer>[];

  constructor(private readonly parts: AccessControlParts) {
    this.reviewers = parts.authorizers.filter((entry) => entry.plugin.review !== undefined);
    this.scopers = parts.authorizers.filter((entry) => entry.plugin.visibility !== undefined);
  }

  /** Some authorizer or admission controller is configured: requests are checked. */
  get enforcing(): boolean {
    return this.parts.authorizers.length > 0 || this.parts.admission.length > 0;
  }

  /** Some admission controller is configured. */
  get admitting(): boolean {
    return this.parts.admission.length > 0;
  }

  /** Some authorizer is configured. */
  get authorizing(): boolean {
    return this.parts.authorizers.length > 0;
  }

  /** Some authorizer judges answers: they are buffered for it. */
  get reviewsAnswers(): boolean {
    return this.reviewers.length > 0;
  }

  /** The first authenticator that knows the caller wins; nobody knowing them makes them anonymous. */
  async authenticate(request: AuthenticationRequest): Promise<Caller> {
    for (const { name, plugin } of this.parts.authenticators) {
      const result = await guarded('authn', name, () => plugin.authenticate(request));
      if (result === undefined) continue;
      if ('failed' in result) throw CoreErrors.unauthenticated({ reason: result.reason });
      return result;
    }
    return ANONYMOUS;
  }

  /** What the caller may see: every authorizer's view at once; `undefined` when every one of them lets them see everything. */
  async visibility(caller: Caller): Promise<ListVisibility | undefined> {
    if (this.scopers.length === 0) return undefined;
    const all = await Promise.all(
      this.scopers.map(({ name, plugin }) => guarded('authz', name, () => plugin.visibility?.(caller) ?? SEES_ALL)),
    );
    const views = all.filter((view) => view.everything !== true);
    if (views.length === 0) return undefined;
    if (views.length === 1) return views[0];
    return {
      sees: (object: AccessObject) => views.every((view) => view.sees(object)),
      seesEach: (objects) => {
        const answers = views.map((view) => seesEach(view, objects));
        return objects.map((_, index) => answers.every((answer) => answer[index] === true));
      },
    };
  }

  /** What the authorizers say the caller may do, in words. */
  roles(caller: Caller): string[] {
    return this.parts.authorizers.flatMap(({ plugin }) => {
      try {
        return [...(plugin.roles?.(caller) ?? [])];
      } catch {
        return [];
      }
    });
  }

  /**
   * Asks every authorizer in order; throws the first denial (403 with its reason). None may deny,
   * as dockerd chains its plugins, and at least one must allow: when every authorizer has no
   * opinion (Kubernetes' `NoOpinion`) the request is refused. With no authorizer configured
   * nothing is asked and everything is allowed.
   */
  async authorize(request: AccessRequest): Promise<Allowed> {
    const placement: PlacementConstraint[] = [];
    let last: DecisionRecord = { allowed: true };
    let allowedBy: string | undefined;
    for (const { name, plugin } of this.parts.authorizers) {
      const decision = await guarded('authz', name, () => plugin.authorize(request));
      if (isNoOpinion(decision)) continue;
      if (!decision.allowed) {
        throw CoreErrors.accessDenied(
          { reason: decision.reason },
          {
            details: { decision: { allowed: false, plugin: name, rule: decision.rule, reason: decision.reason } satisfies DecisionRecord },
          },
        );
      }
      if (decision.placement) placement.push(...decision.placement);
      last = { allowed: true, plugin: name };
      allowedBy = name;
    }
    if (allowedBy === undefined && this.parts.authorizers.length > 0) {
      const plugins = this.parts.authorizers.map(({ name }) => `"${name}"`).join(', ');
      const reason = `no authorizer allows ${request.caller.user} to ${request.action} (no opinion from ${plugins})`;
      throw CoreErrors.accessDenied(
        { reason },
        { details: { decision: { allowed: false, rule: 'no-opinion', reason } satisfies DecisionRecord } },
      );
    }
    return { placement, record: last };
  }

  /** Asks the authorizers that judge answers; throws the first denial. */
  async review(request: AccessRequest, response: WireResponse): Promise<void> {
    for (const { name, plugin } of this.reviewers) {
      const decision = await guarded('authz', name, () => plugin.review!(request, response));
      if (!decision.allowed) {
        throw CoreErrors.accessDenied(
          { reason: decision.reason },
          {
            details: { decision: { allowed: false, plugin: name, rule: decision.rule, reason: decision.reason } satisfies DecisionRecord },
          },
        );
      }
    }
  }

  /** Runs the admission controllers in order, each on what the one before amended; throws the first refusal. */
  async admit(request: AdmissionRequest): Promise<ContainerConfig> {
    let config = request.config as ContainerConfig;
    for (const { name, plugin } of this.parts.admission) {
      // each controller its own copies: one that writes into what it is given changes nothing of the next's
      const copies = {
        config: structuredClone(config),
        ...(request.network ? { network: structuredClone(request.network) } : {}),
        ...(request.fetches ? { fetches: structuredClone(request.fetches) } : {}),
      };
      const verdict = await guarded('admission', name, () => plugin.admit({ ...request, ...copies }));
      if (!verdict.allowed) {
        const words = { policy: verdict.policy, field: verdict.field, detail: verdict.detail ?? '', missing: verdict.missing === true };
        // the audit log records the words the client reads
        const reason = CoreErrors.admissionDenied(words).message;
        throw CoreErrors.admissionDenied(words, {
          details: { decision: { allowed: false, plugin: name, rule: verdict.rule, reason } satisfies DecisionRecord },
        });
      }
      if (verdict.amended) config = verdict.amended;
    }
    return config;
  }
}
