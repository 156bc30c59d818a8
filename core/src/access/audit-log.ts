import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Logger } from '@swarm/plugin-sdk';
import { CoreErrors } from '../errors.js';
import { auditLine, type AuditRecord } from './audit-record.js';
import { StreamSink, type LineSink, type WriteOutcome } from './line-sink.js';
import { RotatingFile } from './rotating-file.js';

export { auditPath, auditTime, type AuditDecision, type AuditObject, type AuditRecord, type AuditStage } from './audit-record.js';

export interface AuditLogOptions {
  /** The file, or `-` for standard output. */
  readonly path: string;
  /** Rotate the file before it grows past this (default 100 MiB). Not for standard output. */
  readonly maxSizeBytes?: number;
  /** Rotated files to keep (default 5); 0 keeps them all, as kube-apiserver's `--audit-log-maxbackup`. */
  readonly maxBackups?: number;
}

export const DEFAULT_AUDIT_MAX_SIZE_BYTES = 100 * 1024 * 1024;
export const DEFAULT_AUDIT_MAX_BACKUPS = 5;

/**
 * Lines waiting for a disk that does not keep up are held up to this much; past it they are
 * dropped (and counted) rather than let a stuck disk fill the manager's memory.
 */
const MAX_QUEUED_BYTES = 16 * 1024 * 1024;

const reasonOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * The audit log (`--audit-log`): one JSON line per request, as kube-apiserver writes its own.
 * `record` only queues the line; a background loop writes what has queued in batches, so a
 * request never waits for the disk and nothing the disk does (full, gone, slow) reaches one:
 * lines that cannot be written are counted in `dropped`, with one warning when the trouble starts
 * and one when it ends.
 */
export class AuditLog {
  private readonly sink: LineSink;
  private queue: string[] = [];
  private queuedBytes = 0;
  private flushing: Promise<void> | undefined;
  private closed = false;
  private droppedLines = 0;
  /** Lines dropped since the trouble started; undefined while all is well. */
  private failing: number | undefined;
  private rotationFailing = false;

  constructor(
    private readonly options: AuditLogOptions,
    private readonly logger: Logger,
  ) {
    this.sink =
      options.path === '-'
        ? new StreamSink(process.stdout)
        : new RotatingFile(options.path, {
            maxSizeBytes: options.maxSizeBytes ?? DEFAULT_AUDIT_MAX_SIZE_BYTES,
            maxBackups: options.maxBackups ?? DEFAULT_AUDIT_MAX_BACKUPS,
          });
  }

  /**
   * An audit log whose file is open (created, mode 0600): a path that cannot be written fails the
   * manager's start, rather than its first request's line. A missing folder is made (mode 0700), as
   * kube-apiserver's log library makes it, so `/var/log/swarm/audit.log` works on a fresh machine;
   * only here: a folder that vanishes later drops lines rather than be made again behind someone's back.
   */
  static async open(options: AuditLogOptions, logger: Logger): Promise<AuditLog> {
    const log = new AuditLog(options, logger);
    const file = log.sink;
    if (file instanceof RotatingFile) {
      await mkdir(dirname(options.path), { recursive: true, mode: 0o700 })
        .then(() => file.open())
        .catch((error: unknown) => {
          throw CoreErrors.auditLogUnwritable({ path: options.path, reason: reasonOf(error) }, { cause: error });
        });
    }
    return log;
  }

  /** Lines that could not be written since the log was opened. */
  get dropped(): number {
    return this.droppedLines;
  }

  /** Queues the request's line. Never throws and never waits. */
  record(entry: AuditRecord): void {
    let line: string;
    try {
      line = auditLine(entry);
    } catch (error) {
      // a record the pipeline built wrong (a cycle, a BigInt) is its bug: lose the line, not the request
      this.drop(1, error);
      return;
    }
    if (this.closed || this.queuedBytes + line.length > MAX_QUEUED_BYTES) {
      this.drop(1, this.closed ? 'the audit log is closed' : 'the writes are too far behind');
      return;
    }
    this.queue.push(line);
    this.queuedBytes += line.length;
    this.flushing ??= this.writeQueued();
  }

  /** Resolves once every line recorded so far is written or dropped. */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  /** Writes what is queued, then closes the file. Lines recorded after this are dropped. */
  async close(): Promise<void> {
    this.closed = true;
    await this.flush();
    await this.sink
      .close()
      .catch((error: unknown) => this.logger.warn({ path: this.options.path, reason: reasonOf(error) }, 'audit log: closing failed'));
    if (this.droppedLines > 0)
      this.logger.warn({ path: this.options.path, dropped: this.droppedLines }, 'audit log closed; some lines could not be written');
  }

  /** The write loop: one batch at a time, each what queued while the last was written. */
  private async writeQueued(): Promise<void> {
    try {
      // let the records of this turn of the event loop join the first batch
      await new Promise<void>((resolve) => setImmediate(resolve));
      while (this.queue.length > 0) {
        const batch = this.queue;
        [this.queue, this.queuedBytes] = [[], 0];
        this.settle(batch.length, await this.sink.write(batch));
      }
    } catch (error) {
      // nothing above should throw (sinks answer their failures); if something does, lose what is queued, not the process
      this.drop(this.queue.length, error);
      [this.queue, this.queuedBytes] = [[], 0];
    } finally {
      this.flushing = undefined;
    }
  }

  private settle(lines: number, outcome: WriteOutcome): void {
    if (outcome.rotationError !== undefined && !this.rotationFailing) {
      this.logger.warn(
        { path: this.options.path, reason: reasonOf(outcome.rotationError) },
        'audit log: cannot rotate; writing on past the size limit',
      );
    }
    this.rotationFailing = outcome.rotationError !== undefined;
    if (outcome.written < lines) {
      this.drop(lines - outcome.written, outcome.error);
    } else if (this.failing !== undefined) {
      this.logger.warn({ path: this.options.path, dropped: this.failing }, 'audit log: writing again');
      this.failing = undefined;
    }
  }

  private drop(lines: number, cause: unknown): void {
    this.droppedLines += lines;
    if (this.failing === undefined) {
      this.logger.warn({ path: this.options.path, reason: reasonOf(cause) }, 'audit log: cannot write; dropping lines until it can');
      this.failing = 0;
    }
    this.failing += lines;
  }
}
