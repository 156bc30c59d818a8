import { randomFillSync } from 'node:crypto';

const POOL_BYTES = 4096;

/**
 * Random hex strings cut from a pool filled 4 kB at a time: `randomBytes` asks the kernel for every
 * ID, and a system call per created container costs more than the rest of making its ID.
 */
export class RandomHex {
  private readonly pool = Buffer.alloc(POOL_BYTES);
  private offset = POOL_BYTES;

  /** `bytes` random bytes (at most 4,096) as 2 × `bytes` hex digits. */
  next(bytes: number): string {
    if (this.offset + bytes > POOL_BYTES) {
      randomFillSync(this.pool);
      this.offset = 0;
    }
    const text = this.pool.toString('hex', this.offset, this.offset + bytes);
    this.offset += bytes;
    return text;
  }
}
