import { describe, expect, it } from 'vitest';
import { collectEntries } from '@swarm/plugin-sdk/helpers';

describe('collectEntries (zk://, etcd:// node values)', () => {
  it('trims values, skips empty ones silently as Swarm classic does, and reports malformed ones', () => {
    const invalid: string[] = [];
    const entries = collectEntries(['127.0.0.3:2375\n', '', '  ', ' 127.0.0.2:2375 ', 'not-an-address', '127.0.0.2:2375'], (error) =>
      invalid.push(error.message),
    );
    expect(entries.map((entry) => entry.addr)).toEqual(['127.0.0.2:2375', '127.0.0.3:2375']);
    expect(invalid).toEqual(['invalid discovery entry "not-an-address": expected host:port (for example 127.0.0.2:2375)']);
  });
});
