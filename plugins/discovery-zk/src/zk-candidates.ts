import { CALL_TIMEOUT_MS } from './zk-node-ops.js';
import type { ZkSession } from './zk-session.js';

/** Prefix of the ephemeral sequential nodes candidates create under the lock key. */
export const CANDIDATE_PREFIX = 'candidate-';

const sequenceOf = (name: string): number => Number(name.slice(name.lastIndexOf('-') + 1));

/** The candidate node names under the lock, lowest sequence (the leader) first. */
export function sortCandidates(children: readonly string[]): string[] {
  return children.filter((name) => name.startsWith(CANDIDATE_PREFIX)).sort((a, b) => sequenceOf(a) - sequenceOf(b));
}

export async function listCandidates(session: ZkSession, key: string, onChange?: () => void): Promise<string[]> {
  await session.call<string>(CALL_TIMEOUT_MS, (client, done) => client.mkdirp(key, done));
  const children = await session.call<string[]>(CALL_TIMEOUT_MS, (client, done) =>
    client.getChildren(key, onChange === undefined ? undefined : () => onChange(), done),
  );
  return sortCandidates(children);
}
