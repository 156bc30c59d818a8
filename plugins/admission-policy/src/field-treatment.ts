import type { Level } from './levels.js';

/**
 * How a level treats one field of a request body:
 * - `allow`: any value;
 * - `refuse`: refused when set (anything but absent, null, false, 0, '', [] or {}, the engine's "unset");
 * - `values`: only these values (or unset);
 * - `rule`: judged by the rule of that name (rules.ts), which reads the field;
 * - `ignored`: the engine does not read the field for this action, so it changes nothing.
 */
export type Treatment =
  | { readonly kind: 'allow' }
  | { readonly kind: 'refuse' }
  | { readonly kind: 'values'; readonly values: readonly (string | number | boolean)[] }
  | { readonly kind: 'rule'; readonly rule: string }
  | { readonly kind: 'ignored' };

/** One field's treatment at the levels that judge (privileged allows everything). */
export interface FieldRow {
  readonly baseline: Treatment;
  readonly restricted: Treatment;
  /** Why it is refused or judged: the detail of a refusal by the table itself. */
  readonly why?: string;
}

export type JudgedLevel = Exclude<Level, 'privileged'>;

const ALLOW: Treatment = { kind: 'allow' };
const REFUSE: Treatment = { kind: 'refuse' };
const IGNORED: Treatment = { kind: 'ignored' };
const judgedBy = (rule: string): Treatment => ({ kind: 'rule', rule });

/** Allowed at every level. */
export const allowed: FieldRow = { baseline: ALLOW, restricted: ALLOW };
/** Not read by the engine for this action. */
export const ignored: FieldRow = { baseline: IGNORED, restricted: IGNORED, why: 'the engine does not read it here' };
/** Refused at baseline and restricted when set. */
export const refused = (why: string): FieldRow => ({ baseline: REFUSE, restricted: REFUSE, why });
/** Only these values at baseline and restricted. */
export const only = (values: readonly (string | number | boolean)[], why: string): FieldRow => ({
  baseline: { kind: 'values', values },
  restricted: { kind: 'values', values },
  why,
});
/** Judged by a rule at baseline and restricted. */
export const judged = (rule: string): FieldRow => ({ baseline: judgedBy(rule), restricted: judgedBy(rule) });
/** Allowed at baseline, judged by a rule at restricted. */
export const restrictedBy = (rule: string): FieldRow => ({ baseline: ALLOW, restricted: judgedBy(rule) });
/** Judged by one rule at baseline and by a stricter one at restricted. */
export const judgedAt = (baseline: string, restricted: string): FieldRow => ({
  baseline: judgedBy(baseline),
  restricted: judgedBy(restricted),
});
