import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from 'node-zookeeper-client';
import { isSwarmError } from '@swarm/plugin-sdk';
import { plainEndpoint } from '../../plugins/discovery-zk/src/zk-endpoint.js';
import { ZkSession } from '../../plugins/discovery-zk/src/zk-session.js';
import { startZooKeeper, type Service } from '../harness/services.js';
import { eventually } from './discovery-kv-fixtures.js';

const PORT = 23790;
/** Starting or stopping a JVM (ZooKeeper) takes far longer than the unit hook default under load. */
const HOOK_MS = 90_000;

/**
 * A request node-zookeeper-client takes while its connection is down: it stays in the client's
 * queue, and the client never calls it back once its session is let go.
 */
const askedWhileDown = (client: Client, done: (error: Error | null, result: unknown) => void): void => {
  client.once('disconnected', () => client.exists('/anything', undefined, done));
};

describe('ZooKeeper session: calls the client never answers', () => {
  let service: Service;

  beforeAll(async () => {
    service = await startZooKeeper(PORT);
  }, HOOK_MS);
  afterAll(async () => {
    await service?.stop();
  }, HOOK_MS);

  const openSession = async (): Promise<ZkSession> => {
    const session = new ZkSession({ endpoint: plainEndpoint([service.addr]), sessionTimeoutMs: 2000, onError: () => undefined });
    await session.ready(30_000);
    return session;
  };

  /**
   * Opens a session, sends a call the client takes while the store is down, stops the store, runs
   * `then`, and returns how the call ended (the store is started again afterwards).
   */
  const callAcrossStoreLoss = async (then: (session: ZkSession) => Promise<void>): Promise<unknown> => {
    const session = await openSession();
    try {
      const outcome = session.call(10_000, askedWhileDown).then(
        () => 'answered',
        (error: unknown) => error,
      );
      await service.kill();
      await then(session);
      return await outcome;
    } finally {
      session.close();
      await service.restart();
    }
  };

  it('fails a call still open when the session is lost, instead of hanging its caller', async () => {
    // The store stays away longer than the session timeout: the session gives up its client.
    const error = await callAcrossStoreLoss(async () => undefined);
    expect(isSwarmError(error) && error.message).toBe('zk: the ZooKeeper session was lost before the call was answered');
  }, 60_000);

  it('fails a call still open when the session is closed', async () => {
    const error = await callAcrossStoreLoss(async (session) => {
      await eventually(() => !session.connected, 'the session to see the store gone');
      session.close();
    });
    expect(isSwarmError(error) && error.message).toBe('zk: the ZooKeeper session is closed');
  }, 60_000);

  it('still answers calls across a store restart that keeps the session', async () => {
    const session = await openSession();
    try {
      await service.kill();
      await service.restart();
      const stat = await session.call<unknown>(30_000, (client, done) => client.exists('/', undefined, done));
      expect(stat).not.toBeNull();
    } finally {
      session.close();
    }
  }, 60_000);
});
