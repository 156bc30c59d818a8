import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrowser, type TestBrowser, gotoPage, navigate } from '../harness/browser.js';
import { startTestbed, type Testbed } from '../harness/engines.js';
import { startManager, type InfoAnswer, type Manager } from '../harness/manager.js';
import { makeTestCertificates, type TestCertificates } from '../mesos-double/certificates.js';
import { dockerOk } from './api-support.js';

// `swarm manage --tlsverify --ui` (port 26110) over engine 123, itself --tlsverify (the manager's
// files serve both sides, as in Swarm classic). A browser reaches the view only with the client
// certificate, as the docker CLI reaches the API. The config file turns the view read-write, so
// the container dialog's actions go through the Docker API with the same certificate.
const PORT = 26110;
const dir = mkdtempSync(join(tmpdir(), 'swarm-web-ui-tls-'));
let certs: TestCertificates;
let testbed: Testbed;
let manager: Manager;
let browser: TestBrowser;

function tlsGet(path: string, withClientCertificate: boolean): Promise<{ status?: number; body?: string; error?: string }> {
  return new Promise((resolve) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: PORT,
        path,
        ca: readFileSync(certs.ca),
        ...(withClientCertificate ? { cert: readFileSync(certs.clientCert), key: readFileSync(certs.clientKey) } : {}),
        timeout: 5000,
      },
      (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode, body }));
      },
    );
    req.on('error', (error) => resolve({ error: (error as NodeJS.ErrnoException).code ?? error.message }));
    req.end();
  });
}

beforeAll(async () => {
  certs = await makeTestCertificates(dir, ['127.0.0.1', '127.0.0.124']);
  writeFileSync(join(dir, 'swarm.config.mjs'), 'export default { ui: { readOnly: false } };\n');
  [testbed, browser] = await Promise.all([startTestbed({ first: 123, count: 1, tlsDir: dir }), startBrowser('web-ui-tls')]);
  manager = await startManager({
    discovery: testbed.addrs,
    port: PORT,
    expectNodes: 1,
    args: [
      '--config',
      join(dir, 'swarm.config.mjs'),
      '--tlsverify',
      '--tlscacert',
      certs.ca,
      '--tlscert',
      certs.serverCert,
      '--tlskey',
      certs.serverKey,
    ],
    readInfo: async () => {
      const answer = await tlsGet('/info', true);
      try {
        return JSON.parse(answer.body ?? '') as InfoAnswer;
      } catch {
        return undefined;
      }
    },
  });
});

afterAll(async () => {
  await browser?.close();
  await manager?.stop();
  await testbed?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('the web view behind --tlsverify', () => {
  it('is refused to a browser without the client certificate', async () => {
    const { page } = await browser.page({ ignoreHTTPSErrors: true });
    const refused = await navigate(page, `https://127.0.0.1:${PORT}/swarm/ui/`);
    // With TLS 1.3 the server refuses after the client's side of the handshake is done, so Chromium
    // reports either the missing certificate or the socket the server closed; no page either way
    // (the next test shows the same page loads with the certificate).
    expect(refused).toMatch(/net::ERR_(BAD_SSL_CLIENT_AUTH_CERT|SOCKET_NOT_CONNECTED|CONNECTION_RESET|CONNECTION_CLOSED)\b/);
    await browser.screenshot(page, 'refused');
    // the same for any client: no page, no API, without a certificate the CA signed
    const bare = await tlsGet('/swarm/ui/', false);
    expect(bare.status).toBeUndefined();
    expect(bare.error).toMatch(/ECONNRESET|EPROTO|ERR_SSL|certificate required/i);
  });

  it('is served, live, to a browser that presents the client certificate', async () => {
    const { page, errors } = await browser.page({
      ignoreHTTPSErrors: true,
      clientCertificates: [{ origin: `https://127.0.0.1:${PORT}`, certPath: certs.clientCert, keyPath: certs.clientKey }],
    });
    await gotoPage(page, `https://127.0.0.1:${PORT}/swarm/ui/`);
    await page.locator('[data-node="node123"][data-status="healthy"]').waitFor({ timeout: 15_000 });
    expect(await page.getByRole('status').filter({ hasText: 'Live' }).count()).toBe(1);
    await browser.screenshot(page, 'with-client-certificate');
    expect((await tlsGet('/swarm/ui/api/status', true)).status).toBe(200);

    // read-write (ui: { readOnly: false }): Stop in the container dialog stops it through the Docker API
    const tls = ['--tlsverify', '--tlscacert', certs.ca, '--tlscert', certs.clientCert, '--tlskey', certs.clientKey];
    await dockerOk(`tcp://127.0.0.1:${PORT}`, [
      ...tls,
      'run',
      '-d',
      '--name',
      'stoppable',
      'busybox:local',
      'sh',
      '-c',
      'trap "exit 0" TERM; sleep 600 & wait',
    ]);
    const card = page.locator('[data-container="stoppable"]');
    await card.click({ timeout: 15_000 });
    await page.getByRole('dialog', { name: 'stoppable' }).getByRole('button', { name: 'Stop' }).click();
    await expect.poll(() => card.locator('.pill').textContent(), { timeout: 20_000 }).toBe('exited');
    const state = await dockerOk(`tcp://127.0.0.1:${PORT}`, [...tls, 'inspect', '--format', '{{.State.Status}}', 'stoppable']);
    expect(state.trim()).toBe('exited');
    expect(errors).toEqual([]);
  });
});
