import { describe, expect, it } from 'vitest';
import { scopedFind } from '../dist/access/scoped-lookup.js';

interface Item {
  id: string;
  name: string;
  team: string;
}

const items: Item[] = [
  { id: 'abc111', name: 'web', team: 'a' },
  { id: 'abc222', name: 'db', team: 'b' },
  { id: 'fff333', name: 'abc1', team: 'b' },
];

/** The cluster's own rules over everything: ID, then name, then a unique prefix. */
function findInAll(reference: string): Item | undefined {
  const byId = items.find((item) => item.id === reference);
  if (byId) return byId;
  const byName = items.find((item) => item.name === reference);
  if (byName) return byName;
  const byPrefix = items.filter((item) => item.id.startsWith(reference));
  return byPrefix.length === 1 ? byPrefix[0] : undefined;
}

const find = (reference: string, team: string) =>
  scopedFind(
    reference,
    findInAll,
    () => items.filter((item) => item.team === team),
    (item) => item.team === team,
    (item) => item.id,
    (item) => [item.name],
  );

describe('look-ups among what a caller may see', () => {
  it("finds the caller's own objects by ID, name and prefix", () => {
    expect(find('abc111', 'a')?.name).toBe('web');
    expect(find('web', 'a')?.name).toBe('web');
  });

  it("another team's object is not found, as a missing one", () => {
    expect(find('db', 'a')).toBeUndefined();
    expect(find('abc222', 'a')).toBeUndefined();
    expect(find('nothing', 'a')).toBeUndefined();
  });

  it('a prefix another team shares is not ambiguous for the caller', () => {
    // Over everything `abc` matches two IDs; team a sees one of them.
    expect(findInAll('abc')).toBeUndefined();
    expect(find('abc', 'a')?.name).toBe('web');
  });

  it("another team's name does not shadow the caller's ID prefix", () => {
    // Over everything `abc1` is team b's container's name; for team a it is web's ID prefix.
    expect(findInAll('abc1')?.team).toBe('b');
    expect(find('abc1', 'a')?.name).toBe('web');
  });
});
