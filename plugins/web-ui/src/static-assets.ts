import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join, relative } from 'node:path';
import type { WebRequest, WebResponse } from '@swarm/plugin-sdk/web';
import { UiErrors } from './errors.js';

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
};

/** What the page may load and do: its own files only, no inline code, never inside a frame. */
const PAGE_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

interface Asset {
  readonly type: string;
  readonly identity: Buffer;
  readonly gzip?: Buffer;
  readonly br?: Buffer;
  readonly etag: string;
  /** Hashed names never change content: browsers keep them for a year. */
  readonly immutable: boolean;
}

function listFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? listFiles(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}

/**
 * The page's built files (`dist/page`, written by `scripts/bundle-page.mjs`), held in memory with
 * their gzip and brotli forms, served with the encoding the browser takes.
 */
export class StaticAssets {
  private readonly assets = new Map<string, Asset>();

  constructor(dir: string) {
    if (!existsSync(join(dir, 'index.html'))) {
      throw UiErrors.pageNotBuilt({ file: join(dir, 'index.html') });
    }
    for (const file of listFiles(dir)) {
      const extension = extname(file);
      const type = TYPES[extension];
      if (!type) continue;
      const path = `/${relative(dir, file).split('\\').join('/')}`;
      const identity = readFileSync(file);
      const sibling = (suffix: string) => (existsSync(file + suffix) ? readFileSync(file + suffix) : undefined);
      this.assets.set(path, {
        type,
        identity,
        gzip: sibling('.gz'),
        br: sibling('.br'),
        etag: `"${createHash('sha256').update(identity).digest('base64url').slice(0, 22)}"`,
        immutable: path.startsWith('/assets/'),
      });
    }
  }

  has(path: string): boolean {
    return this.assets.has(path);
  }

  /** Bytes as sent to a browser that takes brotli (what a user downloads), by path. */
  sizes(): Record<string, { identity: number; br?: number; gzip?: number }> {
    const out: Record<string, { identity: number; br?: number; gzip?: number }> = {};
    for (const [path, asset] of this.assets)
      out[path] = { identity: asset.identity.length, br: asset.br?.length, gzip: asset.gzip?.length };
    return out;
  }

  serve(path: string, request: WebRequest, response: WebResponse): boolean {
    const asset = this.assets.get(path);
    if (!asset) return false;
    const headers: Record<string, string> = {
      'Content-Type': asset.type,
      ETag: asset.etag,
      Vary: 'Accept-Encoding',
      'Cache-Control': asset.immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
      'Referrer-Policy': 'no-referrer',
    };
    if (asset.type.startsWith('text/html')) headers['Content-Security-Policy'] = PAGE_POLICY;
    if (request.headers['if-none-match'] === asset.etag) {
      response.send(304, '', headers);
      return true;
    }
    const accepted = String(request.headers['accept-encoding'] ?? '');
    if (asset.br && /\bbr\b/.test(accepted)) response.send(200, asset.br, { ...headers, 'Content-Encoding': 'br' });
    else if (asset.gzip && /\bgzip\b/.test(accepted)) response.send(200, asset.gzip, { ...headers, 'Content-Encoding': 'gzip' });
    else response.send(200, asset.identity, headers);
    return true;
  }
}
