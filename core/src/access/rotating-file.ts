import { open, readdir, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import type { LineSink, WriteOutcome } from './line-sink.js';

/*
 * A file that is rotated by size as kube-apiserver's audit log is (it uses lumberjack):
 * `audit.log` is renamed `audit-2026-12-06T04-05-06.000.log` (UTC, milliseconds) when the next
 * line would take it past the limit, a new `audit.log` is started, and the oldest backups beyond
 * the limit are removed. One rename per rotation, whatever the number of backups; names sort in
 * time order.
 */

export interface RotationOptions {
  /** Rotate before a write that would take the file past this size. */
  readonly maxSizeBytes: number;
  /** Backups to keep; 0 keeps them all (as kube-apiserver's `--audit-log-maxbackup=0`). */
  readonly maxBackups: number;
}

/** Owner only: the log names who did what. */
const FILE_MODE = 0o600;

const pad = (value: number, width = 2): string => String(value).padStart(width, '0');

/** lumberjack's backup time format (`2006-01-02T15-04-05.000`), in UTC. */
export function backupStamp(date: Date): string {
  const day = `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}`;
  const time = `${pad(date.getUTCHours())}-${pad(date.getUTCMinutes())}-${pad(date.getUTCSeconds())}.${pad(date.getUTCMilliseconds(), 3)}`;
  return `${day}T${time}`;
}

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The name parts of a log's backups: `audit.log` → `audit-<stamp>.log`. */
function backupNaming(path: string): { dir: string; name: (stamp: string) => string; pattern: RegExp } {
  const file = basename(path);
  const ext = extname(file);
  const prefix = file.slice(0, file.length - ext.length);
  return {
    dir: dirname(path),
    name: (stamp) => `${prefix}-${stamp}${ext}`,
    pattern: new RegExp(`^${escape(prefix)}-\\d{4}-\\d\\d-\\d\\dT\\d\\d-\\d\\d-\\d\\d\\.\\d{3}${escape(ext)}$`),
  };
}

interface OpenFile {
  readonly handle: FileHandle;
  readonly ino: number;
  readonly dev: number;
  size: number;
}

const ENOENT = (error: unknown): boolean => (error as NodeJS.ErrnoException).code === 'ENOENT';

export class RotatingFile implements LineSink {
  private file: OpenFile | undefined;
  private readonly naming: ReturnType<typeof backupNaming>;
  /** A failed write may have left part of a line that could not be cut off: start the next on a new line. */
  private torn = false;
  /** When the newest backup was made (ms): the next is never stamped before it. */
  private lastRotation = 0;

  constructor(
    private readonly path: string,
    private readonly options: RotationOptions,
  ) {
    this.naming = backupNaming(path);
  }

  /** Opens (creates, mode 0600) the file; also what `write` does when it has none open. */
  async open(): Promise<void> {
    if (this.file) return;
    const handle = await open(this.path, 'a', FILE_MODE);
    try {
      const { ino, dev, size } = await handle.stat();
      this.file = { handle, ino, dev, size };
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  async write(lines: readonly string[]): Promise<WriteOutcome> {
    let written = 0;
    let rotationError: unknown;
    let chunk: Buffer[] = [];
    let chunkSize = 0;
    try {
      await this.reopenIfMoved();
      await this.open();
      for (const line of lines) {
        const bytes = Buffer.from(line);
        const before = this.file!.size + chunkSize;
        if (before > 0 && before + bytes.length > this.options.maxSizeBytes) {
          written += await this.append(chunk);
          [chunk, chunkSize] = [[], 0];
          rotationError = (await this.rotate()) ?? rotationError;
        }
        chunk.push(bytes);
        chunkSize += bytes.length;
      }
      written += await this.append(chunk);
      return { written, ...(rotationError === undefined ? {} : { rotationError }) };
    } catch (error) {
      return { written, error, ...(rotationError === undefined ? {} : { rotationError }) };
    }
  }

  async close(): Promise<void> {
    const file = this.file;
    this.file = undefined;
    this.torn = false;
    await file?.handle.close();
  }

  /**
   * Someone removed or renamed the file (a logrotate of their own, a clean-up): lines written to
   * the old handle would go nowhere anyone looks, so the next write starts a new file.
   */
  private async reopenIfMoved(): Promise<void> {
    if (!this.file) return;
    const current = await stat(this.path).catch((error: unknown) => {
      if (ENOENT(error)) return undefined;
      throw error;
    });
    if (current?.ino === this.file.ino && current.dev === this.file.dev) return;
    await this.close();
  }

  /** Appends the lines; resolves to how many. */
  private async append(chunk: readonly Buffer[]): Promise<number> {
    if (chunk.length === 0) return 0;
    const file = this.file!;
    const data = Buffer.concat(this.torn ? [Buffer.from('\n'), ...chunk] : chunk);
    try {
      await file.handle.appendFile(data);
    } catch (error) {
      // Cut off what part of the batch got in (a full disk), so the file holds whole lines only.
      this.torn = !(await file.handle.truncate(file.size).then(
        () => true,
        () => false,
      ));
      throw error;
    }
    this.torn = false;
    file.size += data.length;
    return chunk.length;
  }

  /**
   * Starts a new file, the current one becoming the newest backup. A failure (the directory is
   * not writable) is answered, not thrown: the lines go on into the current file, past its limit.
   */
  private async rotate(): Promise<unknown> {
    const { dir, name } = this.naming;
    try {
      // Backups must sort in the order they were made, as the oldest are removed by name: a later
      // rotation never takes an earlier time than the one before (a wall clock set back), and two
      // in one millisecond (a tiny limit, a burst) take the next free name.
      let date = new Date(Math.max(Date.now(), this.lastRotation + 1));
      const taken = new Set(await readdir(dir));
      while (taken.has(name(backupStamp(date)))) date = new Date(date.getTime() + 1);
      await this.close();
      await rename(this.path, join(dir, name(backupStamp(date))));
      this.lastRotation = date.getTime();
      await this.open();
      await this.removeOldBackups();
      return undefined;
    } catch (error) {
      await this.open();
      return error;
    }
  }

  private async removeOldBackups(): Promise<void> {
    if (this.options.maxBackups === 0) return;
    const { dir, pattern } = this.naming;
    const backups = (await readdir(dir)).filter((file) => pattern.test(file)).sort();
    const surplus = backups.slice(0, Math.max(0, backups.length - this.options.maxBackups));
    await Promise.all(
      surplus.map((file) => unlink(join(dir, file)).catch((error: unknown) => (ENOENT(error) ? undefined : Promise.reject(error)))),
    );
  }
}
