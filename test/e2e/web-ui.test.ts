import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessibilityViolations } from '../harness/accessibility.js';
import { startBrowser, type TestBrowser, gotoPage } from '../harness/browser.js';
import { startTestbed, type Testbed } from '../harness/engines.js';
import { startManager, type Manager } from '../harness/manager.js';
import { dockerOk } from './api-support.js';

// `swarm manage --ui` over real engines 120-122 (zone a, a, b; node122 has 3 container slots) on
// port 26100, its web view in headless Chromium. Screenshots: test/.artifacts/web-ui/.
const PORT = 26100;
const SWARM = fileURLToPath(new URL('../../core/bin/swarm.js', import.meta.url));
const run = promisify(execFile);

let zoneA: Testbed;
let zoneB: Testbed;
let manager: Manager;
let browser: TestBrowser;
let page: Page;
let pageErrors: string[];
let host: string;

const column = (name: string) => page.locator(`[data-node="${name}"]`);
const card = (name: string) => page.locator(`[data-container="${name}"]`);

/** `docker ps -a` as the map should show it: container names by node. */
async function containersByNode(): Promise<Map<string, string[]>> {
  const out = await dockerOk(host, ['ps', '-a', '--format', '{{.Names}}']);
  const byNode = new Map<string, string[]>();
  for (const line of out.trim().split('\n').filter(Boolean)) {
    const [node, name] = line.split('/') as [string, string];
    byNode.set(node, [...(byNode.get(node) ?? []), name].sort());
  }
  return byNode;
}

async function cardsByNode(): Promise<Map<string, string[]>> {
  const byNode = new Map<string, string[]>();
  for (const name of await page
    .locator('[data-node]')
    .evaluateAll((columns) => columns.map((element) => element.getAttribute('data-node')!))) {
    const cards = await column(name)
      .locator('[data-container]')
      .evaluateAll((elements) => elements.map((element) => element.getAttribute('data-container')!));
    if (cards.length > 0) byNode.set(name, cards.sort());
  }
  return byNode;
}

async function openTab(name: string): Promise<void> {
  await page.getByRole('tab', { name }).click();
  await expect.poll(() => page.getByRole('tab', { name }).getAttribute('aria-selected')).toBe('true');
}

async function expectAccessible(where: string): Promise<void> {
  const violations = await accessibilityViolations(page);
  expect(violations, `${where}: ${JSON.stringify(violations, null, 1)}`).toEqual([]);
}

beforeAll(async () => {
  [zoneA, zoneB, browser] = await Promise.all([
    startTestbed({ first: 120, count: 2, labels: ['zone=a'] }),
    startTestbed({ first: 122, count: 1, labels: ['zone=b', 'containerslots=3'] }),
    startBrowser('web-ui'),
  ]);
  manager = await startManager({
    discovery: `${zoneA.addrs},${zoneB.addrs}`,
    port: PORT,
    expectNodes: 3,
    args: ['--ui', '--engine-refresh-min-interval', '1s', '--engine-refresh-max-interval', '2s', '--engine-failure-retry', '2'],
  });
  host = manager.host;
  await dockerOk(host, [
    'run',
    '-d',
    '--name',
    'web',
    '-p',
    '8081:80',
    '-e',
    'constraint:zone==a',
    'busybox:local',
    'httpd',
    '-f',
    '-p',
    '80',
    '-h',
    '/www',
  ]);
  await dockerOk(host, ['run', '-d', '--name', 'db', '-m', '64m', '-e', 'reschedule:on-node-failure', 'busybox:local', 'sleep', '600']);
  await dockerOk(host, ['run', '--name', 'job', '-e', 'constraint:node==node122', 'busybox:local', 'true']);
  ({ page, errors: pageErrors } = await browser.page());
});

afterAll(async () => {
  await browser?.close();
  await manager?.stop();
  await Promise.all([zoneA?.stop(), zoneB?.stop()]);
});

describe('the web view (swarm manage --ui) in Chromium', () => {
  it('shows every node and every container, as docker info and docker ps -a do', async () => {
    await gotoPage(page, `http://127.0.0.1:${PORT}/swarm/ui`);
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Live' }).count()).toBe(1);
    for (const name of ['node120', 'node121', 'node122']) {
      await expect.poll(() => column(name).getAttribute('data-status')).toBe('healthy');
    }
    expect(await page.locator('[data-node]').count()).toBe(3);
    expect(await cardsByNode()).toEqual(await containersByNode());
    await expect.poll(() => card('job').locator('.pill').textContent()).toBe('exited');
    expect(await column('node122').textContent()).toContain('zone=b');
    expect(await column('node122').textContent()).toContain('1 container, 3 slots');
    // no access control: nobody to show in the header (web-ui-access.test.ts has the signed-in view)
    expect(await page.getByRole('group', { name: 'Signed in' }).count()).toBe(0);
    const memory = column((await card('db').locator('xpath=ancestor::article').getAttribute('data-node'))!).getByRole('meter', {
      name: 'Memory reserved',
    });
    expect(await memory.getAttribute('aria-valuetext')).toMatch(/^64 MiB \/ [\d.]+ GiB reserved/);
    await browser.screenshot(page, 'map');
    await expectAccessible('map');
  });

  it('shows a container started with the docker CLI without a reload', async () => {
    await page.evaluate(() => ((window as unknown as { sameDocument: boolean }).sameDocument = true));
    await dockerOk(host, ['run', '-d', '--name', 'live', '-e', 'constraint:node==node121', 'busybox:local', 'sleep', '600']);
    await card('live').waitFor({ timeout: 10_000 });
    expect(await card('live').locator('xpath=ancestor::article').getAttribute('data-node')).toBe('node121');
    expect(await page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument)).toBe(true);
    await dockerOk(host, ['stop', '-t', '0', 'live']);
    await expect.poll(() => card('live').locator('.pill').textContent(), { timeout: 10_000 }).toBe('exited');
    await dockerOk(host, ['rm', 'live']);
    await card('live').waitFor({ state: 'detached', timeout: 10_000 });
  });

  it('explains docker run options with exactly the text of swarm schedule --explain, and shows it on the map', async () => {
    const args = ['-m', '64m', '-e', 'constraint:zone==a', '-p', '8081:80', 'busybox:local'];
    await openTab('Explain a placement');
    await page.getByLabel('docker run options').fill(`docker run ${args.join(' ')}`);
    await page.getByRole('button', { name: 'Explain', exact: true }).click();
    const text = page.getByTestId('explain-text');
    await text.waitFor();
    const cli = await run(process.execPath, [SWARM, 'schedule', '--explain', '-H', host, ...args]);
    expect(await text.textContent()).toBe(cli.stdout);
    expect(cli.stdout).toMatch(/node122 +no +- +- +constraint: /);
    expect(cli.stdout).toMatch(/port 8081/);
    await browser.screenshot(page, 'explain');
    await expectAccessible('explain');

    await page.getByRole('button', { name: 'Show on the map' }).click();
    await expect.poll(() => column('node122').locator('.verdict').textContent()).toMatch(/^constraint: /);
    const chosen = /Chosen: (\S+)/.exec(cli.stdout)![1]!;
    expect(await column(chosen).locator('.verdict').textContent()).toMatch(/^chosen/);
    await browser.screenshot(page, 'explain-on-map');
    await page.getByRole('button', { name: 'Clear' }).click();

    await openTab('Explain a placement');
    await page.getByLabel('docker run options').fill('--memory');
    await page.getByRole('button', { name: 'Explain', exact: true }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toBe("option '-m, --memory <bytes>' argument missing");
    await openTab('Cluster map');
  });

  it('opens a container with the keyboard: its placement, reschedule policy and why it is there', async () => {
    await card('db').focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'db' });
    await dialog.waitFor();
    await expect.poll(() => dialog.textContent()).toContain('Placed on');
    const body = (await dialog.textContent())!;
    expect(body).toContain('on-node-failure');
    expect(body).toMatch(/by spread: 3 of 3 nodes fitted/);
    const node = await card('db').locator('xpath=ancestor::article').getAttribute('data-node');
    expect(body).toContain(`Placed on ${node}`);
    expect(body).not.toContain('Stop');
    await dialog.getByRole('button', { name: 'Explain again now' }).click();
    await expect.poll(() => dialog.getByTestId('explain-text').textContent()).toMatch(/^Strategy: spread\n/);
    await browser.screenshot(page, 'container');
    await expectAccessible('container dialog');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
  });

  it('lists plugins with versions and API ranges, discovery, replication and metrics', async () => {
    await page.getByRole('tab', { name: 'Cluster map' }).focus();
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    expect(await page.getByRole('tab', { name: 'Plugins & health' }).getAttribute('aria-selected')).toBe('true');
    const ui = page.getByRole('row', { name: /@swarm\/web-ui/ });
    await ui.waitFor();
    expect(await ui.textContent()).toMatch(/1\.0\.0.*\^2\.0\.0.*web extension ui.*built-in/);
    expect(await page.getByRole('row', { name: /@swarm\/driver-swarm/ }).textContent()).toContain('cluster driver swarm');
    const discovery = (await page.getByRole('region', { name: 'Discovery' }).textContent())!;
    expect(discovery).toContain('127.0.0.121:2375,127.0.0.122:2375,127.0.0.123:2375');
    expect(discovery).toMatch(/Stateok.*Entries3/);
    expect(await page.getByRole('region', { name: 'Replication' }).textContent()).toContain('off (single manager)');
    const figures = (await page.locator('.figures').textContent())!;
    expect(figures).toContain('Nodes healthy3 / 3');
    expect(figures).toMatch(/Placements[4-9]/);
    await browser.screenshot(page, 'status');
    await expectAccessible('status');
  });

  it('turns a stopped engine’s column unhealthy, with the reason', async () => {
    await openTab('Cluster map');
    await zoneB.stopEngine(122);
    await expect.poll(() => column('node122').getAttribute('data-status'), { timeout: 20_000 }).toBe('unhealthy');
    expect(await column('node122').locator('.badge').textContent()).toBe('Unhealthy');
    expect(await column('node122').locator('.column-error').textContent()).toMatch(/connect|refused|EOF|reset/i);
    await page.getByRole('button', { name: 'node122 (Unhealthy)' }).waitFor();
    expect(await page.locator('header.top').textContent()).toContain('1 not healthy');
    await browser.screenshot(page, 'unhealthy');
    expect(pageErrors).toEqual([]);
  });
});
