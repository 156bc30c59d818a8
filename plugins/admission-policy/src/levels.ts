/** Kubernetes' Pod Security Standards levels, most permissive first. */
export const LEVELS = ['privileged', 'baseline', 'restricted'] as const;

export type Level = (typeof LEVELS)[number];

export function isLevel(value: unknown): value is Level {
  return typeof value === 'string' && (LEVELS as readonly string[]).includes(value);
}
