import type { Role } from './roles.js';

/** Whose objects a binding reaches: the caller's own, their team's, or everyone's. */
export const SCOPES = ['own', 'team', 'all'] as const;
export type Scope = (typeof SCOPES)[number];

/** A binding from the options, checked and with its defaults filled in. */
export interface Binding {
  /** Where it came from, for decisions and refusals: `bindings[1]`, or `anonymous`. */
  readonly name: string;
  /** Exactly one of `user` and `group` is set. */
  readonly user?: string;
  readonly group?: string;
  readonly role: Role;
  readonly scope: Scope;
  /** Constraint expressions the placement of the containers it lets its subjects create must meet. */
  readonly nodes: readonly string[];
}

/**
 * What the images of the cluster are to its callers: `owned`, an image carrying the manager's owner
 * labels (one a caller built, committed or imported) is scoped like a container and one without them
 * (pulled, loaded) is everyone's; `everyone`, every image is everyone's; `scoped`, images are scoped
 * by their labels like the rest, so one without them is for scope `all` alone.
 */
export type ImageAccess = 'owned' | 'everyone' | 'scoped';

export interface RulesConfig {
  /** In the order the options give them: the first that grants an action is the one a decision names. */
  readonly bindings: readonly Binding[];
  /** The binding the anonymous caller gets (`anonymous: 'view'`), if any. */
  readonly anonymous: Binding | undefined;
  readonly images: ImageAccess;
}
