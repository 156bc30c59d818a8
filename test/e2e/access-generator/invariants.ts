import type { World } from './world.js';

/**
 * Invariant (a): an answer to alice holds an identifier of bob's objects only as often as the
 * same answer for names nobody holds does. What alice typed is replaced by a placeholder in both
 * answers first (`No such container: <ref>` is the same answer for bob's name and nobody's), and
 * the placeholder may appear no more often for bob's than for nobody's, but where Docker's
 * documented name conflicts say so (container and volume names are the cluster's).
 */

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function whole(text: string): RegExp {
  return new RegExp(`(?<![0-9A-Za-z])${escape(text)}(?![0-9A-Za-z])`, 'g');
}

function count(text: string, what: string): number {
  let n = 0;
  for (let at = text.indexOf(what); at !== -1; at = text.indexOf(what, at + 1)) n++;
  return n;
}

/**
 * Shorter references (a two-character ID prefix) are left as they are: they occur in any text
 * (`Docker/20.10`), and they are no identifier of bob's that the count below looks for.
 */
const SHORTEST_PLACEHELD = 6;

function placeheld(text: string, pairs: ReadonlyArray<readonly [string, string]>, side: 0 | 1): string {
  const sorted = [...pairs].filter((pair) => pair[0].length >= SHORTEST_PLACEHELD).sort((x, y) => y[side].length - x[side].length);
  let out = text;
  for (const pair of sorted) if (pair[side] !== '') out = out.replace(whole(pair[side]), '<ref>');
  return out;
}

/** Docker's answers that name what was typed because the name is taken, as documented in docs/access-control.md. */
const DOCUMENTED_CONFLICT =
  /Conflict[.:] (the volume name|the network name|the image name|The container name) \\?"\/?<ref>\\?" is already in use/;

export function answerLeaks(
  world: World,
  theirs: string,
  nobodys: string,
  pairs: ReadonlyArray<readonly [string, string]>,
): Array<{ what: string; excerpt: string }> {
  const a = placeheld(theirs, pairs, 0);
  const b = placeheld(nobodys, pairs, 1);
  const leaks: Array<{ what: string; excerpt: string }> = [];
  const excerpt = (at: number) => a.slice(Math.max(0, at - 160), at + 160).replace(/[^\x20-\x7e]+/g, '·');
  for (const [what, value] of world.identifiers) {
    if (count(a, value) > count(b, value)) leaks.push({ what, excerpt: excerpt(a.indexOf(value)) });
  }
  if (leaks.length === 0 && count(a, '<ref>') > count(b, '<ref>') && !DOCUMENTED_CONFLICT.test(a))
    leaks.push({ what: 'echo of the reference', excerpt: excerpt(a.indexOf('<ref>')) });
  return leaks;
}
