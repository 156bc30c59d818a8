import type { Readable } from 'node:stream';
import { notFound, type AuthConfig, type ImageRemoval, type ProgressListener } from '@swarm/plugin-sdk';
import type { EngineMonitor } from './engine-monitor.js';
import { fanOut } from './fan-out.js';
import { copiesOf, type NodeCopies } from './node-reference.js';
import { parseRepositoryTag } from './image-match.js';
import { followProgress } from './progress-stream.js';

function readBody(body: Readable): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    body.on('data', (chunk: Buffer | string) => chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk)));
    body.on('end', () => resolve(Buffer.concat(chunks)));
    body.on('error', reject);
  });
}

/** The engines holding an image (every copy of a name or ID, or the one `node/name` names). */
function withImage(monitors: readonly EngineMonitor[], idOrName: string): NodeCopies {
  const copies = copiesOf(monitors, idOrName, (node, name) => node.image(name) !== undefined);
  if (copies.holders.length === 0) throw notFound(`No such image: ${idOrName}`);
  return copies;
}

/** Pull on every engine in parallel, each engine's progress tagged with its node; `signal` stops every engine's pull. */
export async function pullImage(
  monitors: readonly EngineMonitor[],
  reference: string,
  auth: AuthConfig | undefined,
  onProgress: ProgressListener,
  signal?: AbortSignal,
): Promise<void> {
  const { repository, tag } = parseRepositoryTag(reference);
  await fanOut(monitors, async (monitor) => {
    const response = await monitor.api.createImage({ fromImage: repository, tag: tag || 'latest' }, auth, undefined, signal);
    await followProgress(response, (message) => onProgress(monitor.node, message));
    await monitor.refreshImages();
  });
}

/** `docker import`: from a URL on every engine, or from an uploaded archive sent to every engine. */
export async function importImage(
  monitors: readonly EngineMonitor[],
  source: string,
  repository: string,
  tag: string,
  body: Readable | undefined,
  onProgress: ProgressListener,
  signal?: AbortSignal,
): Promise<void> {
  const archive = source === '-' && body ? await readBody(body) : undefined;
  await fanOut(monitors, async (monitor) => {
    const query = { fromSrc: source, repo: repository || undefined, tag: tag || undefined };
    const response = await monitor.api.createImage(query, undefined, archive, signal);
    await followProgress(response, (message) => onProgress(monitor.node, message));
    await monitor.refreshImages();
  });
}

/** `docker load`: the archive is read once and sent to every engine. */
export async function loadImage(
  monitors: readonly EngineMonitor[],
  body: Readable,
  onProgress: ProgressListener,
  signal?: AbortSignal,
): Promise<void> {
  const archive = await readBody(body);
  await fanOut(monitors, async (monitor) => {
    await followProgress(await monitor.api.loadImage(archive, signal), (message) => onProgress(monitor.node, message));
    await monitor.refreshImages();
  });
}

/** Tag on every engine that has the image (or on the one `node/image` names). */
export async function tagImage(
  monitors: readonly EngineMonitor[],
  idOrName: string,
  repository: string,
  tag: string,
  force: boolean,
): Promise<void> {
  const { holders, name } = withImage(monitors, idOrName);
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
export async function removeImages(monitors: readonly EngineMonitor[], idOrName: string, force: boolean): Promise<ImageRemoval[]> {
  const { holders, name } = withImage(monitors, idOrName);
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
