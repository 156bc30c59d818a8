import type { AccessObject } from '@swarm/plugin-sdk/access';
import type { ListVisibility } from '../list-visibility.js';

/** Objects asked of a view in one round trip: each batch has the short limit of its own. */
const SEES_BATCH = 1000;

/** One answer per distinct object in a view (a view lives for one request). */
function objectKey(object: AccessObject): string {
  return JSON.stringify([object.kind, object.id, object.name, object.node, object.labels]);
}

/**
 * A view the worker holds, as the host sees it: each distinct object asked once, the answer kept
 * for the view's life; a list asked in one round trip per SEES_BATCH objects. `ask` is one
 * synchronous round trip to the worker.
 */
export function workerView(ask: (objects: readonly AccessObject[]) => boolean[]): ListVisibility {
  const answers = new Map<string, boolean>();
  return {
    sees: (object) => {
      const key = objectKey(object);
      let seen = answers.get(key);
      if (seen === undefined) {
        seen = ask([object])[0] === true;
        answers.set(key, seen);
      }
      return seen;
    },
    seesEach: (objects) => {
      const keys = objects.map(objectKey);
      const missing = new Map<string, AccessObject>();
      keys.forEach((key, index) => answers.has(key) || missing.set(key, objects[index]!));
      const asked = [...missing];
      for (let from = 0; from < asked.length; from += SEES_BATCH) {
        const batch = asked.slice(from, from + SEES_BATCH);
        const seen = ask(batch.map(([, object]) => object));
        batch.forEach(([key], index) => answers.set(key, seen[index] === true));
      }
      return keys.map((key) => answers.get(key) === true);
    },
  };
}
