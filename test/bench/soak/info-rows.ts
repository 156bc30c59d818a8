/** Healthy nodes according to Swarm classic's `└ Status` rows of /info. */
export function healthyNodeCountFromRows(rows: ReadonlyArray<[string, string]> | undefined): number {
  return (rows ?? []).filter(([key, value]) => key.trim() === '└ Status' && value === 'Healthy').length;
}
