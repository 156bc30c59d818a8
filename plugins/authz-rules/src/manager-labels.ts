import { OWNER_LABEL, TEAM_LABEL } from '@swarm/plugin-sdk/access';

const MANAGER_LABELS = [OWNER_LABEL, TEAM_LABEL] as const;

function labelKeys(labels: unknown): string[] {
  // Docker's Labels are a map; the old `docker volume create` sent a list of `key=value` too.
  if (Array.isArray(labels))
    return labels.filter((entry): entry is string => typeof entry === 'string').map((entry) => entry.split('=')[0]!);
  if (typeof labels === 'object' && labels !== null) return Object.keys(labels);
  return [];
}

/**
 * The manager's own labels (`com.docker.swarm.owner`, `com.docker.swarm.team`) that a create or
 * update body sets. Ownership is what scopes rest on: a caller who could write it could hand
 * their objects to another team, or take over theirs.
 */
export function managerLabelsIn(body: unknown): string[] {
  if (typeof body !== 'object' || body === null) return [];
  const keys = new Set(labelKeys((body as { Labels?: unknown }).Labels));
  return MANAGER_LABELS.filter((label) => keys.has(label));
}
