import { PolicyErrors } from './errors.js';
import { normaliseHostPath } from './host-paths.js';
import { LEVELS, isLevel, type Level } from './levels.js';

/** One binding: the level for a user, or for the members of a group. */
export type Binding = { readonly user: string; readonly level: Level } | { readonly group: string; readonly level: Level };

export interface PolicySettings {
  /** The level of callers no binding names. */
  readonly defaultLevel: Level;
  /** In the order given: the first that names the caller decides. */
  readonly bindings: readonly Binding[];
  /** Normalised, without a trailing slash. */
  readonly allowedHostPaths: readonly string[];
}

const OPTIONS = ['default', 'bindings', 'allowedHostPaths'] as const;
const BINDING_KEYS = ['user', 'group', 'level'] as const;

/**
 * Baseline when the options name no default: it stops the known escalations and runs what a
 * plain `docker run` asks for, as Kubernetes recommends enforcing for most namespaces.
 */
export const DEFAULT_LEVEL: Level = 'baseline';

function unknownKeys(value: Readonly<Record<string, unknown>>, known: readonly string[], prefix: string): void {
  for (const key of Object.keys(value)) {
    if (!known.includes(key)) throw PolicyErrors.optionUnknown({ path: `${prefix}${key}`, known });
  }
}

function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function level(value: unknown, path: string): Level {
  if (!isLevel(value)) throw PolicyErrors.levelUnknown({ path, got: value, levels: LEVELS });
  return value;
}

function nonEmptyString(value: unknown, path: string): string {
  if (typeof value !== 'string' || value.trim() === '') throw PolicyErrors.optionType({ path, expected: 'a non-empty string', got: value });
  return value;
}

function binding(value: unknown, path: string): Binding {
  if (!isRecord(value)) throw PolicyErrors.optionType({ path, expected: 'an object { user | group, level }', got: value });
  unknownKeys(value, BINDING_KEYS, `${path}.`);
  if ((value['user'] === undefined) === (value['group'] === undefined)) throw PolicyErrors.bindingSubject({ path });
  const bound = level(value['level'], `${path}.level`);
  return value['user'] !== undefined
    ? { user: nonEmptyString(value['user'], `${path}.user`), level: bound }
    : { group: nonEmptyString(value['group'], `${path}.group`), level: bound };
}

function list(value: unknown, path: string, expected: string): readonly unknown[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw PolicyErrors.optionType({ path, expected, got: value });
  return value;
}

function hostPath(value: unknown, path: string): string {
  const text = nonEmptyString(value, path);
  if (!text.startsWith('/')) throw PolicyErrors.hostPathRelative({ path, got: text });
  return normaliseHostPath(text);
}

/** The entry's options, checked: every mistake is a coded error naming the option's path. */
export function parsePolicyOptions(options: Readonly<Record<string, unknown>>): PolicySettings {
  unknownKeys(options, OPTIONS, '');
  return {
    defaultLevel: options['default'] === undefined ? DEFAULT_LEVEL : level(options['default'], 'default'),
    bindings: list(options['bindings'], 'bindings', 'a list of bindings').map((entry, i) => binding(entry, `bindings[${i}]`)),
    allowedHostPaths: list(options['allowedHostPaths'], 'allowedHostPaths', 'a list of absolute paths').map((entry, i) =>
      hostPath(entry, `allowedHostPaths[${i}]`),
    ),
  };
}
