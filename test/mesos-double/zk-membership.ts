import { createHash } from 'node:crypto';
import zookeeper from 'node-zookeeper-client';

type Client = ReturnType<typeof zookeeper.createClient>;

/**
 * A digest-protected group: the master authenticates as `owner` (all rights); `reader` may only
 * read; the world gets nothing. Both are `user:password`.
 */
export interface GroupDigest {
  owner: string;
  reader: string;
}

/** ZooKeeper's digest id: `user:base64(sha1(user:password))`. */
export function digestId(credentials: string): string {
  const user = credentials.slice(0, credentials.indexOf(':'));
  return `${user}:${createHash('sha1').update(credentials).digest('base64')}`;
}

function groupAcls(digest: GroupDigest | undefined): unknown[] {
  if (!digest) return zookeeper.ACL.OPEN_ACL_UNSAFE;
  const acl = (permission: number, credentials: string) => new zookeeper.ACL(permission, new zookeeper.Id('digest', digestId(credentials)));
  return [acl(zookeeper.Permission.ALL, digest.owner), acl(zookeeper.Permission.READ, digest.reader)];
}

export interface ZkMembershipDeps {
  readonly servers: string;
  readonly path: string;
  readonly onChange: () => void;
  readonly digest?: GroupDigest;
}

/**
 * The master's place in the ZooKeeper group, as Mesos' contender/detector do it: an ephemeral
 * sequential `json.info_<seq>` holding the MasterInfo JSON; the lowest sequence leads.
 */
export class ZkMembership {
  private readonly servers: string;
  private readonly path: string;
  private readonly onChange: () => void;
  private readonly digest: GroupDigest | undefined;

  private client: Client | undefined;
  private ownName = '';
  private leaderInfo: { name: string; info: { address?: { ip?: string; port?: number } } } | undefined;

  constructor({ servers, path, onChange, digest }: ZkMembershipDeps) {
    this.servers = servers;
    this.path = path;
    this.onChange = onChange;
    this.digest = digest;
  }

  async join(masterInfo: object): Promise<void> {
    const client = zookeeper.createClient(this.servers, { sessionTimeout: 10_000 });
    this.client = client;
    if (this.digest) client.addAuthInfo('digest', Buffer.from(this.digest.owner));
    const acls = groupAcls(this.digest);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`ZooKeeper ${this.servers} unreachable`)), 15_000);
      client.once('connected', () => {
        clearTimeout(timer);
        resolve();
      });
      client.connect();
    });
    await new Promise<void>((resolve, reject) =>
      client.mkdirp(this.path, acls, (error: Error | null) => (error ? reject(error) : resolve())),
    );
    const created = await new Promise<string>((resolve, reject) =>
      client.create(
        `${this.path}/json.info_`,
        Buffer.from(JSON.stringify(masterInfo)),
        acls,
        zookeeper.CreateMode.EPHEMERAL_SEQUENTIAL,
        (error: Error | null, path: string) => (error ? reject(error) : resolve(path)),
      ),
    );
    this.ownName = created.slice(created.lastIndexOf('/') + 1);
    await this.watch();
  }

  private watch(): Promise<void> {
    const client = this.client;
    if (!client) return Promise.resolve();
    return new Promise((resolve) => {
      client.getChildren(
        this.path,
        () => void this.watch(),
        (error: Error | null, children: string[]) => {
          if (error || this.client !== client) return resolve();
          const leader = children.filter((name) => /^json\.info_\d+$/.test(name)).sort()[0];
          if (!leader) {
            this.leaderInfo = undefined;
            this.onChange();
            return resolve();
          }
          client.getData(`${this.path}/${leader}`, (readError: Error | null, data: Buffer | undefined) => {
            if (!readError && data) this.leaderInfo = { name: leader, info: JSON.parse(data.toString('utf8')) };
            this.onChange();
            resolve();
          });
        },
      );
    });
  }

  isLeader(): boolean {
    return this.leaderInfo?.name === this.ownName;
  }

  /** host:port of the leading master, when one is known. */
  leader(): string | undefined {
    const address = this.leaderInfo?.info.address;
    return address?.ip && address.port ? `${address.ip}:${address.port}` : undefined;
  }

  leave(): void {
    this.client?.close();
    this.client = undefined;
  }
}
