/**
 * Resource paths whose names may hold slashes (`node1/web`, `127.0.0.1:5000/app:1`) end with an
 * operation: returns the name and the longest known operation it ends with.
 */
export function splitOperation(rest: string, operations: readonly string[]): { name: string; operation: string } | undefined {
  let best: { name: string; operation: string } | undefined;
  for (const operation of operations) {
    const suffix = `/${operation}`;
    if (rest.endsWith(suffix) && rest.length > suffix.length && (!best || operation.length > best.operation.length)) {
      best = { name: rest.slice(0, -suffix.length), operation };
    }
  }
  return best;
}
