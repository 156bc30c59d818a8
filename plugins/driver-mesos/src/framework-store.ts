import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import zookeeper from 'node-zookeeper-client';
import { isNoNode, zkCall, type ZkSession } from './zk-session.js';
import { MesosErrors } from './errors.js';

/** Keeps the framework ID so a restarted manager re-subscribes as the same framework. */
export interface FrameworkIdStore {
  load(): Promise<string | undefined>;
  save(id: string): Promise<void>;
  /** Forget it (after TEARDOWN, or when the master says the framework was removed). */
  clear(): Promise<void>;
  describe(): string;
}

export class FileFrameworkIdStore implements FrameworkIdStore {
  constructor(private readonly file: string) {}

  async load(): Promise<string | undefined> {
    try {
      const parsed = JSON.parse(await readFile(this.file, 'utf8')) as { frameworkId?: unknown };
      return typeof parsed.frameworkId === 'string' && parsed.frameworkId !== '' ? parsed.frameworkId : undefined;
    } catch {
      return undefined;
    }
  }

  async save(id: string): Promise<void> {
    await mkdir(dirname(this.file), { recursive: true });
    await writeFile(this.file, JSON.stringify({ frameworkId: id }));
  }

  async clear(): Promise<void> {
    await writeFile(this.file, JSON.stringify({})).catch(() => undefined);
  }

  describe(): string {
    return `file ${this.file}`;
  }
}

export interface ZkFrameworkIdStoreDeps {
  readonly session: ZkSession;
  readonly mesosPath: string;
  readonly frameworkName: string;
}

/** Stored next to the Mesos group in the same ZooKeeper ensemble, at `<path>-swarm/<name>/framework_id`. */
export class ZkFrameworkIdStore implements FrameworkIdStore {
  private readonly session: ZkSession;

  private readonly node: string;

  constructor({ session, mesosPath, frameworkName }: ZkFrameworkIdStoreDeps) {
    this.session = session;
    this.node = `${mesosPath === '/' ? '' : mesosPath}-swarm/${frameworkName}/framework_id`;
  }

  private async client() {
    for (let attempt = 0; attempt < 150; attempt++) {
      const client = this.session.current();
      if (client) return client;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw MesosErrors.zkNotConnected();
  }

  async load(): Promise<string | undefined> {
    const client = await this.client();
    try {
      const data = await zkCall<Buffer | undefined>((callback) => client.getData(this.node, undefined, callback));
      const id = data?.toString('utf8') ?? '';
      return id === '' ? undefined : id;
    } catch (error) {
      if (isNoNode(error as never)) return undefined;
      throw error;
    }
  }

  async save(id: string): Promise<void> {
    const client = await this.client();
    await zkCall<string>((callback) =>
      client.mkdirp(this.node, Buffer.alloc(0), zookeeper.ACL.OPEN_ACL_UNSAFE, zookeeper.CreateMode.PERSISTENT, callback),
    );
    await zkCall((callback) => client.setData(this.node, Buffer.from(id), -1, callback));
  }

  async clear(): Promise<void> {
    const client = await this.client();
    await zkCall((callback) => client.setData(this.node, Buffer.alloc(0), -1, callback)).catch(() => undefined);
  }

  describe(): string {
    return `ZooKeeper ${this.node}`;
  }
}
