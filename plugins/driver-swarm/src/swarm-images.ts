import type { Readable } from 'node:stream';
import type { Image, ImageInventory, ImageManagement, ImagePull, ProgressListener, TransferOptions } from '@swarm/plugin-sdk';
import type { AuthConfig, ImageRemoval } from '@swarm/plugin-sdk/docker';
import type { EnginePool } from './engine-pool.js';
import { SwarmErrors } from './errors.js';
import { fanOut } from './fan-out.js';
import { parseRepositoryTag } from './image-match.js';
import { copiesOf, type NodeCopies } from './node-reference.js';
import { followProgress } from './progress-stream.js';

function readBody(body: Readable): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    body.on('data', (chunk: Buffer | string) => chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk)));
    body.on('end', () => resolve(Buffer.concat(chunks)));
    body.on('error', reject);
  });
}

interface ImageCache {
  readonly version: number;
  readonly list: Image[];
  /** Computed on first use. */
  distinct: number | undefined;
}

/** The images of every engine; pulls, imports and loads go to every healthy engine at once. */
export class SwarmImages implements ImageInventory, ImagePull, ImageManagement {
  /** Bumped when any engine's image list changes; the cluster-wide list is rebuilt only then. */
  private version = 0;
  private cache: ImageCache | undefined;

  constructor(private readonly pool: EnginePool) {}

  /** An engine's images changed (or it joined or left the cluster). */
  changed(): void {
    this.version++;
  }

  list(): readonly Image[] {
    return this.current().list;
  }

  /** Images with distinct IDs over all engines (`docker info`'s Images). */
  distinctCount(): number {
    const cache = this.current();
    cache.distinct ??= new Set(cache.list.map((image) => image.id)).size;
    return cache.distinct;
  }

  private current(): ImageCache {
    if (this.cache?.version !== this.version) {
      this.cache = { version: this.version, list: this.pool.nodes().flatMap((node) => node.images()), distinct: undefined };
    }
    return this.cache;
  }

  find(idOrName: string): Image | undefined {
    for (const node of this.pool.nodes()) {
      const image = node.image(idOrName);
      if (image) return image;
    }
    return undefined;
  }

  /** Pull on every engine in parallel, each engine's progress tagged with its node; `signal` stops every engine's pull. */
  async pull(reference: string, auth: AuthConfig | undefined, onProgress: ProgressListener, options?: TransferOptions): Promise<void> {
    const { repository, tag } = parseRepositoryTag(reference);
    await fanOut(this.pool.healthy(), async (monitor) => {
      const response = await monitor.api.createImage({ fromImage: repository, tag: tag || 'latest' }, auth, undefined, options?.signal);
      await followProgress(response, (message) => onProgress(monitor.node, message));
      await monitor.refreshImages();
    });
  }

  /** `docker import`: from a URL on every engine, or from an uploaded archive sent to every engine. */
  async importFrom(
    source: string,
    repository: string,
    tag: string,
    body: Readable | undefined,
    onProgress: ProgressListener,
    options?: TransferOptions & { readonly changes?: readonly string[]; readonly message?: string },
  ): Promise<void> {
    const archive = source === '-' && body ? await readBody(body) : undefined;
    // dockerd reads its `changes` values as the lines of one Dockerfile: one value with them joined is the same.
    const changes = options?.changes?.length ? options.changes.join('\n') : undefined;
    await fanOut(this.pool.healthy(), async (monitor) => {
      const query = {
        fromSrc: source,
        repo: repository || undefined,
        tag: tag || undefined,
        changes,
        message: options?.message || undefined,
      };
      const response = await monitor.api.createImage(query, undefined, archive, options?.signal);
      await followProgress(response, (message) => onProgress(monitor.node, message));
      await monitor.refreshImages();
    });
  }

  /** `docker load`: the archive is read once and sent to every engine. */
  async load(body: Readable, onProgress: ProgressListener, options?: TransferOptions): Promise<void> {
    const archive = await readBody(body);
    await fanOut(this.pool.healthy(), async (monitor) => {
      await followProgress(await monitor.api.loadImage(archive, options?.signal), (message) => onProgress(monitor.node, message));
      await monitor.refreshImages();
    });
  }

  /** Tag on every engine that has the image (or on the one `node/image` names). */
  async tag(idOrName: string, repository: string, tag: string, force: boolean): Promise<void> {
    const { holders, name } = this.holders(idOrName);
    await fanOut(
      holders,
      async (monitor) => {
        await monitor.api.tagImage(name, repository, tag, force);
        await monitor.refreshImages();
      },
      true,
    );
  }

  /** Remove from every engine that has the image (or the one `node/image` names); the engines' answers are concatenated. */
  async remove(idOrName: string, force: boolean): Promise<ImageRemoval[]> {
    const { holders, name } = this.holders(idOrName);
    const answers = await fanOut(
      holders,
      async (monitor) => {
        const removed = await monitor.api.removeImage(name, force);
        await monitor.refreshImages();
        return removed ?? [];
      },
      true,
    );
    return answers.flat();
  }

  /** The engines holding an image (every copy of a name or ID, or the one `node/name` names). */
  private holders(idOrName: string): NodeCopies {
    const copies = copiesOf(this.pool.healthy(), idOrName, (node, name) => node.image(name) !== undefined);
    if (copies.holders.length === 0) throw SwarmErrors.noSuchImage({ image: idOrName });
    return copies;
  }
}
