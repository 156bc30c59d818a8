import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SnapshotMessage, WireViewer } from '@swarm/web-ui';
import { accessibilityViolations } from '../harness/accessibility.js';
import { startBrowser, type TestBrowser, gotoPage } from '../harness/browser.js';
import { startAccessCluster, type AccessCluster, type Person } from './access-support.js';

// The web view under access control: `swarm manage --tlsverify --ui` (port 27200) over engines
// 236-237 (themselves --tlsverify, as a manager with TLS dials its engines), the built-in `tls`
// authenticator (user = CN, groups = O) and the `rules` authorizer with one edit binding per team
// (and one admin, who sees everything: the unscoped path, and the harness's readiness probe).
// alice (O=team-a) and bob (O=team-b) each run a container through the docker CLI; Chromium
// presents alice's (then bob's) client certificate itself (playwright's `clientCertificates`), and
// sees only that person's containers, their name and roles. Screenshots: test/.artifacts/web-ui-access/.
const PORT = 27200;
const ORIGIN = `https://127.0.0.1:${PORT}`;
const CONFIG = {
  access: {
    authn: ['tls'],
    authz: [
      [
        'rules',
        {
          bindings: [
            { group: 'team-a', role: 'edit' },
            { group: 'team-b', role: 'edit' },
            { group: 'admins', role: 'admin' },
          ],
        },
      ],
    ],
  },
};

let cluster: AccessCluster;
let browser: TestBrowser;
const ids: Partial<Record<'alice' | 'bob', string>> = {};

const file = (name: string) => join(cluster.dir, name);

/** A person's live stream, read until `done` holds for what came (or 30 s passed); ended then. */
function readLive(person: Person, done: (text: string) => boolean): { text: Promise<string>; status: Promise<number> } {
  let setStatus: (status: number) => void = () => undefined;
  const status = new Promise<number>((resolve) => (setStatus = resolve));
  const text = new Promise<string>((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: PORT,
        path: '/swarm/ui/api/live',
        ca: readFileSync(file('ca.pem')),
        cert: readFileSync(file(`${person}-cert.pem`)),
        key: readFileSync(file(`${person}-key.pem`)),
      },
      (res) => {
        setStatus(res.statusCode ?? 0);
        let received = '';
        const finish = () => {
          clearTimeout(timer);
          resolve(received);
          req.destroy();
        };
        const timer = setTimeout(finish, 30_000);
        res.on('data', (chunk: Buffer) => {
          received += chunk.toString();
          if (done(received)) finish();
        });
        res.on('end', finish);
      },
    );
    req.on('error', reject);
    req.end();
  });
  return { text, status };
}

/** Server-sent events as `{event, data}`. */
function framesOf(text: string): Array<{ event: string; data: string }> {
  return text
    .split('\n\n')
    .filter((block) => block.startsWith('event: '))
    .map((block) => {
      const [event, data] = block.split('\n');
      return { event: event!.slice('event: '.length), data: data!.slice('data: '.length) };
    });
}

async function dockerAs(person: Person, args: string[]): Promise<string> {
  const result = await cluster.as(person, args);
  if (result.code !== 0) throw new Error(`docker ${args.join(' ')} as ${person}: ${result.stderr}`);
  return result.stdout;
}

/**
 * Chromium with a person's client certificate, on the page once its map is up. Other test files add
 * and remove engine bridges meanwhile, and Chromium drops any load on an interface change (for a
 * script too, not only the navigation `gotoPage` retries): the page is loaded again then.
 */
async function openAs(person: Person): Promise<{ page: Page; errors: string[] }> {
  const opened = await browser.page({
    ignoreHTTPSErrors: true,
    clientCertificates: [{ origin: ORIGIN, certPath: file(`${person}-cert.pem`), keyPath: file(`${person}-key.pem`) }],
  });
  const dropped: string[] = [];
  opened.page.on('requestfailed', (failed) => dropped.push(`${failed.url()}: ${failed.failure()?.errorText ?? '?'}`));
  for (let attempt = 1; ; attempt++) {
    dropped.length = 0;
    await gotoPage(opened.page, `${ORIGIN}/swarm/ui/`);
    try {
      await opened.page.locator('[data-node="node236"]').waitFor({ timeout: 15_000 });
      return opened;
    } catch (error) {
      if (attempt >= 3 || !dropped.some((line) => line.includes('ERR_NETWORK_CHANGED'))) {
        throw new Error(`${(error as Error).message}; failed requests: ${dropped.join(', ') || 'none'}`, { cause: error });
      }
    }
  }
}

/**
 * Opens a container's dialog and waits for its details. Other test files change the machine's
 * bridges while this one runs, and Chromium then fails requests in flight (ERR_NETWORK_CHANGED,
 * the page's "Failed to fetch"): such a dialog is closed and opened again, up to three times.
 */
async function openDetails(page: Page, name: string): Promise<void> {
  const dialog = page.getByRole('dialog', { name });
  for (let attempt = 1; ; attempt++) {
    await page.locator(`[data-container="${name}"]`).click();
    await expect
      .poll(async () => /Restart policy|Failed to fetch/.test((await dialog.textContent()) ?? ''), { timeout: 10_000 })
      .toBe(true);
    const text = (await dialog.textContent()) ?? '';
    if (text.includes('Restart policy')) return;
    if (attempt >= 3) throw new Error(`the details of ${name} did not load: ${text}`);
    await page.keyboard.press('Escape');
  }
}

const cardNames = (page: Page) =>
  page.locator('[data-container]').evaluateAll((cards) => cards.map((card) => card.getAttribute('data-container')!).sort());

beforeAll(async () => {
  [cluster, browser] = await Promise.all([
    startAccessCluster({ firstEngine: 236, engines: 2, port: PORT, config: () => CONFIG, args: ['--ui'] }),
    startBrowser('web-ui-access'),
  ]);
  ids.alice = (await dockerAs('alice', ['run', '-d', '--name', 'alice-web', 'busybox:local', 'sleep', '600'])).trim();
  ids.bob = (await dockerAs('bob', ['run', '-d', '--name', 'bob-db', 'busybox:local', 'sleep', '600'])).trim();
});

afterAll(async () => {
  await browser?.close();
  await cluster?.stop();
});

describe('the web view under access control', () => {
  it('shows alice, in Chromium with her client certificate, only her containers, her name, groups and roles', async () => {
    const { page, errors } = await openAs('alice');
    await page.locator('[data-container="alice-web"]').waitFor({ timeout: 20_000 });
    expect(await cardNames(page)).toEqual(['alice-web']);
    expect(await page.content()).not.toContain('bob-db');

    // the roles the page shows are those the host reported in the stream's viewer frame
    const live = framesOf(await readLive('alice', (text) => text.includes('event: snapshot')).text);
    expect(live.map((frame) => frame.event)).toEqual(['viewer', 'snapshot']);
    const viewer = JSON.parse(live[0]!.data) as WireViewer;
    expect(viewer).toMatchObject({ user: 'alice', method: 'TLS', scoped: true });
    expect(viewer.groups).toContain('team-a');
    const badge = page.getByRole('group', { name: 'Signed in' });
    await expect.poll(() => badge.locator('.viewer-user').textContent()).toBe('alice (TLS client certificate)');
    expect(await badge.locator('.viewer-groups').textContent()).toBe('team-a');
    expect(await badge.locator('.viewer-roles').textContent()).toBe(viewer.roles.length > 0 ? viewer.roles.join('; ') : 'none reported');
    expect(await badge.locator('.viewer-scope').textContent()).toBe('Showing only what you may see');
    const snapshot = JSON.parse(live[1]!.data) as SnapshotMessage;
    expect(snapshot.nodes.flatMap((node) => node.containers.map((container) => container.name))).toEqual(['alice-web']);

    // her container's details open; the status figures count her container alone
    await openDetails(page, 'alice-web');
    const violations = await accessibilityViolations(page);
    expect(violations, JSON.stringify(violations, null, 1)).toEqual([]);
    await browser.screenshot(page, 'alice');
    const status = JSON.parse((await cluster.call('alice', 'GET', '/swarm/ui/api/status')).text) as {
      metrics: { containers: { total: number } };
    };
    expect(status.metrics.containers.total).toBe(1);
    expect(errors).toEqual([]);
  });

  it('shows bob his own container and not alice’s', async () => {
    const { page, errors } = await openAs('bob');
    await page.locator('[data-container="bob-db"]').waitFor({ timeout: 20_000 });
    expect(await cardNames(page)).toEqual(['bob-db']);
    await expect
      .poll(() => page.getByRole('group', { name: 'Signed in' }).locator('.viewer-user').textContent())
      .toBe('bob (TLS client certificate)');
    await browser.screenshot(page, 'bob');
    expect(errors).toEqual([]);
  });

  it('shows an admin (a binding with scope all) everything, still saying who they are', async () => {
    const frames = framesOf(await readLive('admin', (text) => text.includes('event: snapshot')).text);
    expect(frames.map((frame) => frame.event)).toEqual(['viewer', 'snapshot']);
    // `scoped` is as the host says: true whenever an authorizer has `visibility` (rules answers one for
    // every caller, seeing all for scope all), so this browser gets frames `sees` let everything through
    expect(JSON.parse(frames[0]!.data)).toMatchObject({
      user: 'root-admin',
      method: 'TLS',
      groups: ['admins'],
    } satisfies Partial<WireViewer>);
    const snapshot = JSON.parse(frames[1]!.data) as SnapshotMessage;
    const names = snapshot.nodes.flatMap((node) => node.containers.map((container) => container.name)).sort();
    expect(names).toEqual(['alice-web', 'bob-db']);
    expect((await cluster.call('admin', 'GET', `/swarm/ui/api/containers/${ids.bob!}`)).status).toBe(200);
  });

  it('keeps bob’s new container and its events out of alice’s live stream, while hers arrive', async () => {
    const stream = readLive(
      'alice',
      (text) => /event: activity\ndata: .*"alice-late"/.test(text) && /event: nodes\ndata: .*"alice-late"/.test(text),
    );
    expect(await stream.status).toBe(200);
    await dockerAs('bob', ['run', '-d', '--name', 'bob-late', 'busybox:local', 'sleep', '600']);
    await dockerAs('alice', ['run', '-d', '--name', 'alice-late', 'busybox:local', 'sleep', '600']);
    const text = await stream.text;
    expect(text).toMatch(/event: nodes\ndata: .*"alice-late"/);
    expect(text).toMatch(/event: activity\ndata: .*"alice-late"/);
    expect(text).not.toContain('bob');
    expect(text).not.toContain(ids.bob!.slice(0, 12));
  });

  it('answers alice 404 for bob’s container, the same as for one that does not exist, and in explain', async () => {
    const own = await cluster.call('alice', 'GET', `/swarm/ui/api/containers/${ids.alice!}`);
    expect(own.status).toBe(200);
    const hidden = await cluster.call('alice', 'GET', `/swarm/ui/api/containers/${ids.bob!}`);
    expect(hidden.status).toBe(404);
    expect(JSON.parse(hidden.text)).toEqual({ message: `No such container: ${ids.bob!}` });
    const missing = await cluster.call('alice', 'GET', `/swarm/ui/api/containers/${'f'.repeat(64)}`);
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.text)).toEqual({ message: `No such container: ${'f'.repeat(64)}` });
    const explained = await cluster.call('alice', 'POST', '/swarm/ui/api/explain', { container: ids.bob! });
    expect(explained.status).toBe(404);
    expect((await cluster.call('alice', 'POST', '/swarm/ui/api/explain', { container: ids.alice! })).status).toBe(200);
    // a dry run may not find out where bob's container runs through an affinity to it
    const probe = await cluster.call('alice', 'POST', '/swarm/ui/api/explain', {
      args: ['-e', 'affinity:container==bob-db', 'busybox:local'],
    });
    expect(probe.status).toBe(404);
    expect(JSON.parse(probe.text)).toEqual({ message: 'No such container: bob-db' });
    const ownAffinity = await cluster.call('alice', 'POST', '/swarm/ui/api/explain', {
      args: ['-e', 'affinity:container==alice-web', 'busybox:local'],
    });
    expect(ownAffinity.status).toBe(200);
    // the Docker API agrees: bob's container does not exist for alice
    expect((await cluster.call('alice', 'GET', `/containers/${ids.bob!}/json`)).status).toBe(404);
  });

  it('refuses the page and its API with 403 to a caller no binding names', async () => {
    for (const path of ['/swarm/ui/', '/swarm/ui/api/live', '/swarm/ui/api/status', `/swarm/ui/api/containers/${ids.alice!}`]) {
      const answer = await cluster.call('outsider', 'GET', path);
      expect(answer.status, path).toBe(403);
      expect(answer.text).toContain('user mallory');
    }
    expect((await cluster.call('outsider', 'POST', '/swarm/ui/api/explain', { args: ['busybox:local'] })).status).toBe(403);
  });
});
