import type { AccessObject, Visibility } from '@swarm/plugin-sdk/access';

/**
 * A caller's view that can also be asked about many objects at once: an isolated authorizer's
 * (its worker answers a whole list in one round trip instead of one per object).
 */
export interface ListVisibility extends Visibility {
  seesEach?(objects: readonly AccessObject[]): readonly boolean[];
}

/** `sees` of each object, in one question when the view takes lists. */
export function seesEach(view: ListVisibility, objects: readonly AccessObject[]): readonly boolean[] {
  return view.seesEach ? view.seesEach(objects) : objects.map((object) => view.sees(object));
}
