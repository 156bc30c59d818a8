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

/** What the images of the cluster are to its callers: readable by everyone, or scoped by labels like the rest. */
export type ImageAccess = 'everyone' | 'scoped';

export interface RulesConfig {
  /** In the order the options give them: the first that grants an action is the one a decision names. */
  readonly bindings: readonly Binding[];
  /** The binding the anonymous caller gets (`anonymous: 'view'`), if any. */
  readonly anonymous: Binding | undefined;
  readonly images: ImageAccess;
}
