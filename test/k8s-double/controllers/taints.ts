// Taints and tolerations (core/v1 helpers ToleratesTaint).

export interface Taint {
  key: string;
  value?: string;
  effect: string;
  timeAdded?: string;
}

export interface Toleration {
  key?: string;
  operator?: string;
  value?: string;
  effect?: string;
  tolerationSeconds?: number;
}

export function tolerates(toleration: Toleration, taint: Taint): boolean {
  if (toleration.effect && toleration.effect !== taint.effect) return false;
  if (toleration.key && toleration.key !== taint.key) return false;
  if (toleration.operator === 'Exists') return true;
  return Boolean(toleration.key) && (toleration.value ?? '') === (taint.value ?? '');
}

/** The first taint of the given effects that no toleration tolerates. */
export function untoleratedTaint(
  taints: readonly Taint[],
  tolerations: readonly Toleration[],
  effects: readonly string[],
): Taint | undefined {
  return taints.find((taint) => effects.includes(taint.effect) && !tolerations.some((toleration) => tolerates(toleration, taint)));
}
