import type { Stat } from 'node-zookeeper-client';
import { ZkCodes, zkCode, ZkCreateMode, type ZkSession } from './zk-session.js';

/** How long one store call may wait for a connection. */
export const CALL_TIMEOUT_MS = 10_000;

/**
 * Makes sure `path` is an ephemeral node of this session holding `value`. A node left by an
 * earlier session (a restarted `swarm join`) is replaced rather than trusted, because it vanishes
 * when that session expires.
 */
export async function ensureEphemeral(session: ZkSession, path: string, value: string, timeoutMs: number): Promise<void> {
  const parent = path.slice(0, path.lastIndexOf('/'));
  await session.call<string>(timeoutMs, (client, done) => client.mkdirp(parent, done));
  const stat = await session.call<Stat | null>(timeoutMs, (client, done) => client.exists(path, undefined, done));
  const ours = stat !== null && session.id()?.equals(stat.ephemeralOwner) === true;
  if (ours) return;
  if (stat !== null) await removeIfPresent(session, path, timeoutMs);
  try {
    await session.call<string>(timeoutMs, (client, done) => client.create(path, Buffer.from(value), ZkCreateMode.EPHEMERAL, done));
  } catch (error) {
    // Another session created it between our check and create: the next heartbeat replaces it.
    if (zkCode(error) !== ZkCodes.NODE_EXISTS) throw error;
  }
}

export async function removeIfPresent(session: ZkSession, path: string, timeoutMs: number): Promise<void> {
  try {
    await session.call<void>(timeoutMs, (client, done) => client.remove(path, -1, done));
  } catch (error) {
    if (zkCode(error) !== ZkCodes.NO_NODE) throw error;
  }
}

/** The node's value, or `undefined` when it does not exist (any more). */
export async function readIfPresent(session: ZkSession, path: string): Promise<string | undefined> {
  try {
    const data = await session.call<Buffer | null>(CALL_TIMEOUT_MS, (client, done) => client.getData(path, undefined, done));
    return data?.toString('utf8') ?? '';
  } catch (error) {
    if (zkCode(error) === ZkCodes.NO_NODE) return undefined;
    throw error;
  }
}

export async function exists(session: ZkSession, path: string, onChange?: () => void): Promise<boolean> {
  const stat = await session.call<Stat | null>(CALL_TIMEOUT_MS, (client, done) => client.exists(path, onChange, done));
  return stat !== null;
}
