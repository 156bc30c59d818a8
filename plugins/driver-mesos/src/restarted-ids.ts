/**
 * The IDs of containers that `docker restart` replaced with a new task's container, so that a
 * script holding the old ID (`docker restart $id && docker logs $id`) still reaches the container.
 */
export class RestartedIds {
  private readonly successorOf = new Map<string, string>();

  replaced(oldId: string, newId: string): void {
    for (const [earlier, successor] of this.successorOf) if (successor === oldId) this.successorOf.set(earlier, newId);
    this.successorOf.set(oldId, newId);
  }

  /** The current ID for a replaced container's full ID or unique prefix. */
  current(idOrPrefix: string): string | undefined {
    const exact = this.successorOf.get(idOrPrefix);
    if (exact !== undefined || idOrPrefix.length < 4) return exact;
    let found: string | undefined;
    for (const [oldId, successor] of this.successorOf) {
      if (!oldId.startsWith(idOrPrefix)) continue;
      if (found !== undefined && found !== successor) return undefined;
      found = successor;
    }
    return found;
  }

  /** The container is gone for good: nothing leads to it any more. */
  removed(id: string): void {
    this.successorOf.delete(id);
    for (const [oldId, successor] of this.successorOf) if (successor === id) this.successorOf.delete(oldId);
  }
}
