import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PLUGIN_API_VERSION } from '@swarm/plugin-sdk';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const SWARM = join(REPO, 'core', 'bin', 'swarm.js');

/**
 * A discovery plugin whose store takes registrations and never answers them (a store client
 * that lost the request): each call is counted in a file.
 */
const stalledDiscovery = (calls: string) => `import { appendFileSync } from 'node:fs';
import { definePlugin } from '@swarm/plugin-sdk';
export default definePlugin({
  name: 'stalled-discovery',
  version: '1.0.0',
  apiVersion: '^${PLUGIN_API_VERSION}',
  register(ctx) {
    ctx.discovery('stalled', {
      useValue: {
        scheme: 'stalled',
        open: () => ({
          watch: () => ({ stop: () => undefined }),
          register: (addr) => {
            appendFileSync(${JSON.stringify(calls)}, addr + '\\n');
            return new Promise(() => undefined);
          },
          close: async () => undefined,
        }),
      },
    });
  },
});
`;

describe('swarm join with a store that never answers a registration', () => {
  let dir: string;
  let calls: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'swarm-join-stalled-'));
    calls = join(dir, 'calls.txt');
    // the plugin imports @swarm/plugin-sdk as an installed plugin would
    symlinkSync(join(REPO, 'node_modules'), join(dir, 'node_modules'));
    writeFileSync(join(dir, 'stalled-discovery.js'), stalledDiscovery(calls));
    writeFileSync(join(dir, 'swarm.config.js'), `export default { plugins: ['./stalled-discovery.js'] };\n`);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reports the unanswered registration after the TTL and keeps registering', async () => {
    const child = spawn(
      process.execPath,
      [SWARM, 'join', '--advertise', '127.0.0.91:2375', '--heartbeat', '1s', '--ttl', '2s', 'stalled://x'],
      {
        cwd: dir,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const registrations = () => (existsSync(calls) ? readFileSync(calls, 'utf8').split('\n').filter(Boolean).length : 0);
    try {
      const deadline = Date.now() + 30_000;
      while (registrations() < 3 && Date.now() < deadline && child.exitCode === null)
        await new Promise((resolve) => setTimeout(resolve, 100));
      expect(child.exitCode, output).toBeNull();
      // Without the bound, the first registration would be the only one.
      expect(registrations(), output).toBeGreaterThanOrEqual(3);
      expect(output).toContain('the discovery service did not answer the registration within 2s (the TTL)');
    } finally {
      child.kill();
    }
  }, 60_000);
});
