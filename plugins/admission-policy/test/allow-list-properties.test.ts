import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FIELD_TABLE, createFieldsViolation } from '@swarm/admission-policy';
import { ANONYMOUS, admit } from './support.js';

/*
 * Generated create bodies against the field table: every path of the table (and so of the
 * swagger), set to a generated value, re-cased or renamed at any depth. Whatever the body, a field
 * the table refuses or does not have is never let through by the allow-list, and a field it allows
 * is never refused by it.
 */

const ROWS = Object.entries(FIELD_TABLE['container.create']!).filter(([path]) => !path.startsWith('?'));

/** A value the engine does not read as unset: the allow-list must judge it. */
const setValue = fc.oneof(
  fc.string({ minLength: 1 }),
  fc.integer().filter((n) => n !== 0),
  fc.constant(true),
  fc.array(fc.string(), { minLength: 1, maxLength: 3 }),
  fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), fc.string(), { minKeys: 1, maxKeys: 2 }),
);

/** The body that sets one table path: lists get one object, maps one key. */
function bodyAt(segments: readonly string[], leaf: unknown, mapKey: string): Record<string, unknown> {
  const [head, ...rest] = segments;
  if (rest.length === 0) return { [head!]: leaf };
  if (rest[0] === '*') return { [head!]: { [mapKey]: bodyAt(rest.slice(1), leaf, mapKey) } };
  if (head!.endsWith('[]')) return { [head!.slice(0, -2)]: [bodyAt(rest, leaf, mapKey)] };
  return { [head!]: bodyAt(rest, leaf, mapKey) };
}

/** The path a refusal names for that body (`HostConfig.Mounts[0].Source`, `...EndpointsConfig["k"].Aliases`). */
function namedPath(segments: readonly string[], mapKey: string): string {
  let out = '';
  for (const [i, segment] of segments.entries()) {
    if (segment === '*') out += `[${JSON.stringify(mapKey)}]`;
    else out += `${i === 0 ? '' : '.'}${segment.replace('[]', '[0]')}`;
  }
  return out;
}

const flipCase = (name: string) => (name === name.toLowerCase() ? name.toUpperCase() : name.toLowerCase());

describe('the allow-list, generated', () => {
  it('refuses a field the table refuses when set, and never refuses one it allows', () => {
    fc.assert(
      fc.property(fc.constantFrom(...ROWS), setValue, fc.string({ minLength: 1, maxLength: 6 }), ([path, row], value, mapKey) => {
        const segments = path.split('.');
        const body = { Image: 'busybox', ...bodyAt(segments, value, mapKey) };
        const found = createFieldsViolation(body, 'baseline');
        const treatment = row.baseline;
        if (treatment.kind === 'refuse') {
          expect(found).toMatchObject({ rule: 'allow-list', field: namedPath(segments, mapKey) });
          expect(admit(ANONYMOUS, body).allowed).toBe(false);
        } else if (treatment.kind === 'values') {
          expect(found !== undefined).toBe(!treatment.values.includes(value as string));
        } else {
          expect(found).toBeUndefined();
        }
      }),
      { seed: 42, numRuns: 2000 },
    );
  });

  it('refuses a re-cased or unknown field set at any depth, at both levels, naming it', () => {
    fc.assert(
      fc.property(fc.constantFrom(...ROWS), setValue, fc.boolean(), fc.nat(), ([path], value, recase, depthSeed) => {
        const segments = path.split('.');
        // a stranger in place of one named segment of the path, with what was below it dropped
        const named = segments.flatMap((segment, i) => (segment === '*' ? [] : [i]));
        const at = named[depthSeed % named.length]!;
        const bare = segments[at]!.replace('[]', '');
        const stranger = recase ? flipCase(bare) : `${bare}X`;
        fc.pre(stranger !== bare);
        const changed = [...segments.slice(0, at), stranger];
        const body = { Image: 'busybox', ...bodyAt(changed, value, 'k') };
        for (const level of ['baseline', 'restricted'] as const)
          expect(createFieldsViolation(body, level)).toMatchObject({ rule: 'allow-list', field: namedPath(changed, 'k') });
        expect(admit(ANONYMOUS, body).allowed).toBe(false);
      }),
      { seed: 7, numRuns: 2000 },
    );
  });
});
