import { posix } from 'node:path';
import { gunzipSync } from 'node:zlib';

/*
 * What a `docker load` archive would add, read as dockerd reads it: the archive is unpacked into a
 * directory (a later entry of the same path replacing an earlier one), then `manifest.json` names
 * each image's config file and tags. Anything read differently could smuggle an image past the
 * judgement, so what cannot be read the same way is answered as unreadable, and refused.
 */

/** One image of an archive: the tags it would take and its config's labels. */
export interface ArchiveImage {
  readonly repoTags: readonly string[];
  readonly labels: Readonly<Record<string, string>>;
}

interface Entry {
  readonly type: string;
  readonly data: Buffer;
}

const BLOCK = 512;
const REGULAR = new Set(['0', '\0', '7']);

function text(field: Buffer): string {
  const end = field.indexOf(0);
  return field.subarray(0, end < 0 ? field.length : end).toString('utf8');
}

/** A header's numeric field: octal text, or base-256 when its first byte has the high bit (GNU). */
function numberField(field: Buffer): number {
  if ((field[0]! & 0x80) !== 0) return field.subarray(1).reduce((value, byte) => value * 256 + byte, field[0]! & 0x7f);
  const digits = text(field).trim();
  return digits === '' ? 0 : parseInt(digits, 8);
}

/** A pax extended header's records that change how the next entry is read: its `path` and `size`. */
function paxRecords(data: Buffer): { path?: string; size?: number } {
  const records: { path?: string; size?: number } = {};
  let rest = data;
  while (rest.length > 0) {
    const space = rest.indexOf(0x20);
    const length = parseInt(rest.subarray(0, space).toString('latin1'), 10);
    if (space < 0 || !(length > space) || length > rest.length) break;
    const record = rest.subarray(space + 1, length - 1).toString('utf8');
    if (record.startsWith('path=')) records.path = record.slice('path='.length);
    if (record.startsWith('size=')) records.size = Number(record.slice('size='.length));
    rest = rest.subarray(length);
  }
  return records;
}

/** A path as unpacking it cleans it: relative to the archive's root. */
function cleanPath(name: string): string {
  return posix.normalize(`/${name}`).slice(1).replace(/\/$/, '');
}

/** The archive's files by cleaned path, the last entry of each path winning as when unpacked. */
function entries(archive: Buffer): Map<string, Entry> | undefined {
  const files = new Map<string, Entry>();
  let offset = 0;
  let longName: string | undefined;
  let paxSize: number | undefined;
  while (offset + BLOCK <= archive.length) {
    const header = archive.subarray(offset, offset + BLOCK);
    if (header.every((byte) => byte === 0)) return files;
    const size = paxSize ?? numberField(header.subarray(124, 136));
    paxSize = undefined;
    const type = String.fromCharCode(header[156]!);
    let name = text(header.subarray(0, 100));
    if (header.subarray(257, 262).toString('latin1') === 'ustar') {
      const prefix = text(header.subarray(345, 500));
      if (prefix !== '') name = `${prefix}/${name}`;
    }
    const start = offset + BLOCK;
    if (!Number.isSafeInteger(size) || size < 0 || start + size > archive.length) return undefined;
    const data = archive.subarray(start, start + size);
    offset = start + Math.ceil(size / BLOCK) * BLOCK;
    if (type === 'L') longName = text(data);
    else if (type === 'x') {
      const records = paxRecords(data);
      longName = records.path ?? longName;
      paxSize = records.size;
    } else if (type !== 'g' && type !== 'K') {
      files.set(cleanPath(longName ?? name), { type, data });
      longName = undefined;
    }
  }
  return files;
}

/** The tar inside: as it is, or gunzipped; undefined for the other compressions dockerd reads. */
function tarOf(archive: Buffer): Buffer | undefined {
  if (archive[0] === 0x1f && archive[1] === 0x8b) {
    try {
      return gunzipSync(archive);
    } catch {
      return undefined;
    }
  }
  const bzip2 = archive.subarray(0, 3).toString('latin1') === 'BZh';
  const xz = archive.subarray(0, 6).equals(Buffer.from([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]));
  const zstd = archive.subarray(0, 4).equals(Buffer.from([0x28, 0xb5, 0x2f, 0xfd]));
  return bzip2 || xz || zstd ? undefined : archive;
}

function json(entry: Entry | undefined): unknown {
  if (!entry || !REGULAR.has(entry.type)) return undefined;
  try {
    return JSON.parse(entry.data.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

function strings(value: unknown): Record<string, string> {
  if (typeof value !== 'object' || value === null) return {};
  return Object.fromEntries(Object.entries(value).filter((pair): pair is [string, string] => typeof pair[1] === 'string'));
}

/**
 * The images an archive would load, or undefined when it cannot be read as dockerd would read it
 * (a compression other than gzip, no regular `manifest.json`, a config that is missing, a link or
 * not JSON).
 */
export function archiveImages(archive: Buffer): ArchiveImage[] | undefined {
  const tar = tarOf(archive);
  const files = tar && entries(tar);
  const manifest = files && json(files.get('manifest.json'));
  if (!files || !Array.isArray(manifest)) return undefined;
  const images: ArchiveImage[] = [];
  for (const item of manifest as unknown[]) {
    const { Config, RepoTags } = (typeof item === 'object' && item !== null ? item : {}) as { Config?: unknown; RepoTags?: unknown };
    if (typeof Config !== 'string') return undefined;
    const config = json(files.get(cleanPath(Config))) as { config?: { Labels?: unknown } } | undefined;
    if (typeof config !== 'object' || config === null) return undefined;
    const tags = Array.isArray(RepoTags) ? RepoTags.filter((tag): tag is string => typeof tag === 'string') : [];
    images.push({ repoTags: tags, labels: strings(config.config?.Labels) });
  }
  return images;
}

/**
 * What unpacking a (possibly gzipped) tar leaves at a path: a regular file's bytes, an entry of
 * another kind (a link, which the engine would follow), `absent`, or undefined when the archive
 * cannot be read so.
 */
export function archivePath(archive: Buffer, path: string): { readonly file: Buffer } | 'other' | 'absent' | undefined {
  const tar = tarOf(archive);
  const files = tar && entries(tar);
  if (!files) return undefined;
  const entry = files.get(cleanPath(path));
  if (!entry) return 'absent';
  return REGULAR.has(entry.type) ? { file: entry.data } : 'other';
}

/**
 * A regular file's text at a path of a (possibly gzipped) tar, as unpacking leaves it; undefined
 * when the archive cannot be read so or the path is not a regular file there.
 */
export function archiveFile(archive: Buffer, path: string): string | undefined {
  const found = archivePath(archive, path);
  return typeof found === 'object' ? found.file.toString('utf8') : undefined;
}
