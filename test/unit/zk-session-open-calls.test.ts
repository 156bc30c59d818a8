import { createServer, connect, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from 'node-zookeeper-client';
import { isSwarmError } from '@swarm/plugin-sdk';
import { plainEndpoint } from '../../plugins/discovery-zk/src/zk-endpoint.js';
import { ZkSession } from '../../plugins/discovery-zk/src/zk-session.js';
import { startZooKeeper, type Service } from '../harness/services.js';
import { relaySockets } from '../harness/tcp-relay.js';

const PORT = 23790;
/** Starting or stopping a JVM (ZooKeeper) takes far longer than the unit hook default under load. */
const HOOK_MS = 90_000;

/**
 * A request node-zookeeper-client takes while its connection is down: it stays in the client's
 * queue. When the session then expires, the client never sends it nor calls it back.
 */
const askedWhileDown = (client: Client, done: (error: Error | null, result: unknown) => void): void => {
  client.once('disconnected', () => client.exists('/anything', undefined, done));
};

/** A TCP relay to the store that can cut the session off while the store stays up (a network partition). */
class Partition {
  private readonly server: Server;
  private readonly open = new Set<Socket>();
  private cut = false;

  constructor(target: number) {
    this.server = createServer((client) => {
      if (this.cut) {
        client.destroy();
        return;
      }
      relaySockets(client, connect(target, '127.0.0.1'), this.open);
    });
  }

  listen(): Promise<string> {
    return new Promise((resolve) =>
      this.server.listen(0, '127.0.0.1', () => resolve(`127.0.0.1:${(this.server.address() as { port: number }).port}`)),
    );
  }

  start(): void {
    this.cut = true;
    for (const socket of this.open) socket.destroy();
  }

  end(): void {
    this.cut = false;
  }

  close(): void {
    this.start();
    this.server.close();
  }
}

describe('ZooKeeper session: calls the client never answers', () => {
  let service: Service;

  beforeAll(async () => {
    service = await startZooKeeper(PORT);
  }, HOOK_MS);
  afterAll(async () => {
    await service?.stop();
  }, HOOK_MS);

  const openSession = async (addr: string, sessionTimeoutMs: number): Promise<ZkSession> => {
    const session = new ZkSession({ endpoint: plainEndpoint([addr]), sessionTimeoutMs, onError: () => undefined });
    await session.ready(30_000);
    return session;
  };

  it('fails a call the client still holds when the session expires, instead of hanging its caller', async () => {
    const partition = new Partition(PORT);
    const session = await openSession(await partition.listen(), 2000);
    try {
      const outcome = session.call(10_000, askedWhileDown).then(
        () => 'answered',
        (error: unknown) => error,
      );
      partition.start();
      // The store (tickTime 2 s) expires a session it has not heard from for 4 s, at its next tick.
      await new Promise((resolve) => setTimeout(resolve, 7000));
      partition.end();
      const unanswered = new Promise((resolve) => setTimeout(() => resolve('still open 15 s after the partition ended'), 15_000));
      const error = await Promise.race([outcome, unanswered]);
      expect(isSwarmError(error) && error.message).toBe('zk: the ZooKeeper session was lost before the call was answered');
    } finally {
      session.close();
      partition.close();
    }
  }, 60_000);

  it('still answers calls across a store restart that keeps the session', async () => {
    // a session timeout longer than the restart: the session is kept, and its client too
    const session = await openSession(service.addr, 20_000);
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
