import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SWARM_BIN } from './support/run-cli.js';
import { docker } from './api-test-client.js';
import { createTempProject, type TempProject } from './support/temp-project.js';

// A third-party driver with bugs, run by the real `swarm manage` on port 23746 and called by the
// real docker CLI: its faults reach the client naming it, and the manager keeps serving.
const PORT = 23746;
const HOST = `tcp://127.0.0.1:${PORT}`;
let project: TempProject;
let manager: ChildProcess;
let output = '';

const BROKEN_DRIVER = `ctx.driver('sim', { useFactory: () => ({
      driverName: 'sim',
      async start() {
        // the plugin's own background work failing, outside any call of the host's
        setTimeout(() => { const state = null; state.refresh(); }, 300);
        setTimeout(() => void Promise.reject(new RangeError('background refresh gave up')), 300);
      },
      async stop() {},
      nodes: () => [],
      containers: () => [],
      container: () => undefined,
      async createContainer(config) { return config.Labels.owner.trim(); },
      async startContainer() {},
      async removeContainer() {},
      explain: () => ({ strategy: 'spread', filters: [], softDropped: false, nodes: [], summary: '0/0 nodes are available.' }),
      info: () => ({ systemStatus: [['Nodes', '0']], ncpu: 0, memTotal: 0, containers: 0, containersRunning: 0, containersPaused: 0, containersStopped: 0, images: 0, driver: 'sim' }),
      subscribe: () => () => undefined,
    }) }, { discovery: 'optional' });`;

beforeAll(async () => {
  project = createTempProject();
  project.addPlugin('swarm-plugin-sim', { version: '0.1.0', apiVersion: '^2.0.0', register: BROKEN_DRIVER, kinds: ['driver'] });
  project.write('swarm.config.js', "export default { plugins: ['sim'], cluster: { driver: 'sim' } };\n");
  manager = spawn(process.execPath, [SWARM_BIN, 'manage', '-H', HOST], { cwd: project.dir });
  manager.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  manager.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  for (let attempt = 0; attempt < 100; attempt++) {
    if ((await docker(HOST, ['info', '--format', '{{.Driver}}'])).code === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the manager did not answer: ${output}`);
}, 30_000);

afterAll(() => {
  manager?.kill('SIGTERM');
  project?.remove();
});

describe('a third-party driver that throws', () => {
  it('fails docker run with the driver and its package named, logs it once, counts it, and keeps serving', async () => {
    const expected = `driver "sim" (swarm-plugin-sim@0.1.0) failed in createContainer(): Cannot read properties of undefined (reading 'trim')`;
    for (let attempt = 0; attempt < 3; attempt++) {
      const refused = await docker(HOST, ['run', '-d', 'busybox', 'true']);
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain(expected);
    }
    expect((await docker(HOST, ['info', '--format', '{{.Containers}}'])).stdout.trim()).toBe('0');
    // pino's JSON lines: the stack once, with the driver and its package
    expect(output.match(/failed in a call/g)).toHaveLength(1);
    expect(output).toMatch(/"kind":"driver","name":"sim","plugin":"swarm-plugin-sim@0\.1\.0"/);
    expect(output).toContain('"stack":"TypeError');
    const metrics = await (await fetch(`http://127.0.0.1:${PORT}/_swarm/metrics`)).text();
    expect(metrics).toContain('swarm_plugin_failures_total{kind="driver",name="sim",plugin="swarm-plugin-sim@0.1.0"} 3');
  });

  it('names the plugin when its own background work throws or rejects, and keeps serving', async () => {
    for (let attempt = 0; attempt < 50 && !output.includes('unhandled rejection in plugin'); attempt++)
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect(output).toContain('uncaught exception in plugin swarm-plugin-sim@0.1.0');
    expect(output).toContain('unhandled rejection in plugin swarm-plugin-sim@0.1.0');
    expect(output).toContain('background refresh gave up');
    expect((await docker(HOST, ['info', '--format', '{{.Driver}}'])).code).toBe(0);
  });
});
