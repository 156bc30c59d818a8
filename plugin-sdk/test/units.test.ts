import { describe, expect, it } from 'vitest';
import { bytesSize } from '@swarm/plugin-sdk/helpers';

describe('bytesSize (go-units BytesSize)', () => {
  it.each([
    [0, '0 B'],
    [1023, '1023 B'],
    [1024, '1 KiB'],
    [64 * 1024 * 1024, '64 MiB'],
    [1_096_290_304, '1.021 GiB'],
    [2 * 1024 ** 4, '2 TiB'],
  ])('%d → %s', (bytes, text) => expect(bytesSize(bytes)).toBe(text));
});
