import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrowser, type TestBrowser, gotoPage } from '../harness/browser.js';
import { startTestbed, type Testbed } from '../harness/engines.js';
import type { Manager } from '../harness/manager.js';
import { startMesosMaster, type MesosMasterDouble } from '../mesos-double/index.js';
import { docker, startMesosManager } from '../mesos-double/swarm-cli.js';

// The same view over the mesos driver: `swarm manage -c mesos --ui` (port 26120) with the Mesos
// master double (26121) whose agent runs tasks on engine 124. The page knows only the SDK's
// Cluster and Node, so a Mesos agent's offers show as a node column like an engine.
const API_PORT = 26120;
const MASTER_PORT = 26121;
const stateDir = mkdtempSync(join(tmpdir(), 'swarm-web-ui-mesos-'));
let testbed: Testbed;
let master: MesosMasterDouble;
let manager: Manager;
let browser: TestBrowser;

beforeAll(async () => {
  [testbed, browser] = await Promise.all([startTestbed({ first: 124, count: 1 }), startBrowser('web-ui-mesos')]);
  master = await startMesosMaster({
    agents: testbed.engines.map((engine) => ({ host: engine.host, port: engine.port })),
    port: MASTER_PORT,
    heartbeatIntervalSeconds: 2,
    statusRetryMs: 500,
  });
  manager = await startMesosManager(
    API_PORT,
    `mesos://127.0.0.1:${MASTER_PORT}`,
    ['mesos.tasktimeout=10s', 'mesos.offerrefusetimeout=1s', `mesos.statefile=${join(stateDir, 'framework.json')}`],
    1,
    { args: ['--ui'] },
  );
});

afterAll(async () => {
  await browser?.close();
  await manager?.stop();
  await master?.stop();
  await testbed?.stop();
  rmSync(stateDir, { recursive: true, force: true });
});

describe('the web view over the mesos driver', () => {
  it('shows the agent, a docker run task placed on it without a reload, and the driver’s own state', async () => {
    const { page, errors } = await browser.page();
    await gotoPage(page, `http://127.0.0.1:${API_PORT}/swarm/ui/`);
    const agent = page.locator('[data-node]');
    await agent.first().waitFor({ timeout: 15_000 });
    expect(await agent.count()).toBe(1);
    expect(await page.locator('.brand').textContent()).toContain('mesos driver');

    const run = await docker(API_PORT, 'run', '-d', '--name', 'on-mesos', '-m', '32m', 'busybox:local', 'sleep', '600');
    expect(run.stderr).toBe('');
    const card = page.locator('[data-container="on-mesos"]');
    await card.waitFor({ timeout: 15_000 });
    await expect.poll(() => card.locator('.pill').textContent(), { timeout: 15_000 }).toBe('running');
    await browser.screenshot(page, 'map');

    await page.getByRole('tab', { name: 'Plugins & health' }).click();
    const discovery = page.getByRole('region', { name: 'Discovery' });
    await discovery.waitFor();
    expect(await discovery.textContent()).toContain('read by the mesos driver itself');
    const cluster = (await page.getByRole('region', { name: 'Cluster' }).textContent())!;
    expect(cluster).toContain(`Mesos Master127.0.0.1:${MASTER_PORT}`);
    expect(await page.getByRole('row', { name: /@swarm\/driver-mesos/ }).textContent()).toContain('cluster driver mesos');
    await browser.screenshot(page, 'status');
    expect(errors).toEqual([]);
    await docker(API_PORT, 'rm', '-f', 'on-mesos');
  });
});
