import type { Container, Image, Network, Volume } from '@swarm/plugin-sdk';
import type { AccessObject, AccessRequest, Caller, PlacementConstraint } from '@swarm/plugin-sdk/access';
import type { DecisionRecord } from './access-control.js';

/** Look-ups among the objects one caller may see (the API front implements them over the cluster). */
export interface ScopedLookup {
  container(reference: string): Container | undefined;
  network(reference: string): Network | undefined;
  volume(reference: string): Volume | undefined;
  /** The copy of an image a reference names on some node, among those the caller may see. */
  image(reference: string): Image | undefined;
}

/** What access control decided about one request, for its handler and the audit log. */
export interface RequestAccess {
  readonly caller: Caller;
  readonly action: string;
  /** The object the request is about, when it names one the caller may see. */
  readonly object?: AccessObject;
  readonly decision: DecisionRecord;
  /** What authorizers asked of a create's placement. */
  readonly placement: readonly PlacementConstraint[];
  /** Whether the caller may see an object; lists and streams show only those. */
  sees(object: AccessObject): boolean;
  /** The caller's view is narrower than everything (lists must be filtered). */
  readonly scoped: boolean;
  /** The question as authorizers got it (for `review` after the answer). */
  readonly question?: AccessRequest;
  /** Look-ups among what the caller may see. */
  readonly lookups?: ScopedLookup;
}
