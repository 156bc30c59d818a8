import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startTestbed, type Testbed } from '../harness/engines.js';

const run = promisify(execFile);
const example = fileURLToPath(new URL('../examples/embed.mjs', import.meta.url));
let testbed: Testbed;

beforeAll(async () => {
  testbed = await startTestbed({ first: 85, count: 2 });
});
afterAll(async () => {
  await testbed?.stop();
});

test('the README embedding example runs against real engines and cleans up after itself', async () => {
  const { stdout } = await run('node', [example, `nodes://${testbed.addrs}`], { timeout: 60_000 });
  expect(stdout).toMatch(/^Docker API on tcp:\/\/127\.0\.0\.1:\d+$/m);
  expect(stdout).toMatch(/^placed on node8[56]$/m);
  expect(stdout).toMatch(/^event: create on node8[56]$/m);
  expect(stdout).toContain('a 1 PiB container: 0/2 nodes are available: 2 insufficient resources.');
  expect(stdout).toMatch(/stopped\n$/);
  for (const engine of testbed.engines) {
    const { stdout: names } = await run('docker', ['-H', `tcp://${engine.addr}`, 'ps', '-a', '--format', '{{.Names}}']);
    expect(names).not.toContain('embedded-demo');
  }
});
