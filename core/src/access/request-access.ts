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
  /** `sees` of many objects at once (cheaper for an isolated authorizer); absent when the view does not take lists. */
  seesEach?(objects: readonly AccessObject[]): readonly boolean[];
  /** The caller's view is narrower than everything (lists must be filtered). */
  readonly scoped: boolean;
  /** The question as authorizers got it (for `review` after the answer). */
  readonly question?: AccessRequest;
  /** Look-ups among what the caller may see. */
  readonly lookups?: ScopedLookup;
}

/** The items whose objects the caller sees, the view asked about all of them at once. */
export function visibleItems<T>(access: RequestAccess, items: readonly T[], objectOf: (item: T) => AccessObject): T[] {
  if (!access.scoped) return [...items];
  const objects = items.map(objectOf);
  const seen = access.seesEach ? access.seesEach(objects) : objects.map((object) => access.sees(object));
  return items.filter((_, index) => seen[index] === true);
}
