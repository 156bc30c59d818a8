/** What a rule found wrong: the verdict's rule, field and detail, without the policy's name. */
export interface Violation {
  readonly rule: string;
  /** A path into the request body as Docker names it (`HostConfig.Binds[0]`). */
  readonly field: string;
  readonly detail?: string;
}

/** A rule reads the body (its shape already checked) and answers its first violation, if any. */
export type Rule<Context> = (context: Context) => Violation | undefined;

/** The first violation of the rules, in their order: the same body always gets the same refusal. */
export function firstViolation<Context>(rules: readonly Rule<Context>[], context: Context): Violation | undefined {
  for (const rule of rules) {
    const violation = rule(context);
    if (violation) return violation;
  }
  return undefined;
}
