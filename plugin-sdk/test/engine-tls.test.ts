import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ErrorCodes } from '@swarm/plugin-sdk';
import { readEngineTls } from '@swarm/plugin-sdk/helpers';

describe('readEngineTls', () => {
  it('reads the manager TLS files once, and refuses a missing one with a coded error', () => {
    const dir = mkdtempSync(join(tmpdir(), 'engine-tls-unit-'));
    try {
      writeFileSync(join(dir, 'ca.pem'), 'CA');
      writeFileSync(join(dir, 'cert.pem'), 'CERT');
      writeFileSync(join(dir, 'key.pem'), 'KEY');
      const tls = readEngineTls({ ca: join(dir, 'ca.pem'), cert: join(dir, 'cert.pem'), key: join(dir, 'key.pem'), verify: true });
      expect({ ca: tls?.ca?.toString(), cert: tls?.cert?.toString(), key: tls?.key?.toString(), verify: tls?.rejectUnauthorized }).toEqual({
        ca: 'CA',
        cert: 'CERT',
        key: 'KEY',
        verify: true,
      });
      expect(readEngineTls(undefined)).toBeUndefined();
      expect(() => readEngineTls({ cert: join(dir, 'missing.pem'), key: join(dir, 'key.pem'), verify: false })).toThrow(
        expect.objectContaining({ code: ErrorCodes.CONFIG_INVALID, message: expect.stringContaining('cannot read --tlscert') }),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
