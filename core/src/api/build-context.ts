import type { IncomingMessage } from 'node:http';
import { archivePath } from '../access/image-archive.js';
import { keepBody, keptBody } from '../http/buffered-body.js';

/*
 * A classic build's context as the engine reads it: the request's body, a tar (or gzipped tar),
 * read whole once and kept, so that every judgement reads the same bytes the engine gets; and its
 * Dockerfile, where the engine looks for it.
 */

/** The context, read whole the first time and kept for the engine (and for the next reader). */
export async function buildContext(req: IncomingMessage): Promise<Buffer> {
  const kept = keptBody(req);
  if (kept) return kept.raw;
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string));
  const context = Buffer.concat(chunks);
  keepBody(req, context);
  return context;
}

export type DockerfileReading = { readonly text: string } | { readonly problem: string };

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The Dockerfile the engine would read: `dockerfile`, or `Dockerfile`, then `dockerfile` when no
 * `Dockerfile` entry exists (moby's withDockerfileFromContext). One that cannot be read as the
 * engine reads it is a problem, not a guess: a link (the engine follows it), a path that is no
 * entry (a directory on its way may be a link), a compression other than gzip, text that is not
 * UTF-8 (decoded, it would not be the bytes the engine parses).
 */
export function contextDockerfile(context: Buffer, query: URLSearchParams): DockerfileReading {
  const path = query.get('dockerfile') || 'Dockerfile';
  let found = archivePath(context, path);
  if (found === 'absent' && path === 'Dockerfile') found = archivePath(context, 'dockerfile');
  if (found === undefined) return { problem: 'the context is not a tar or gzipped tar that can be read here' };
  if (typeof found !== 'object') return { problem: `${path} is not a regular file of the context` };
  try {
    return { text: UTF8.decode(found.file) };
  } catch {
    return { problem: `${path} is not UTF-8 text` };
  }
}
