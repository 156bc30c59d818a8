import { brotliDecompressSync } from 'node:zlib';
import type { Logger } from '@swarm/plugin-sdk';
import type { WebRoute } from '@swarm/plugin-sdk/web';
import { pluginProviders } from '@swarm/plugin-sdk/testing';
import { describe, expect, it } from 'vitest';
import plugin, { UiExtension } from '../src/index.js';
import type { ContainerDetails, ExplainAnswer, StatusAnswer } from '../src/wire.js';
import { callRoute, TestNode, TestView } from './support.js';

const ignore = (): void => undefined;
const silent: Logger = { level: 'silent', trace: ignore, debug: ignore, info: ignore, warn: ignore, error: ignore, child: () => silent };

function mount(options: Record<string, string | number | boolean> = {}): { routes: readonly WebRoute[]; view: TestView; node: TestNode } {
  const view = new TestView();
  const node = new TestNode('node1');
  view.nodeList = [node];
  const extension = new UiExtension();
  const routes = extension.mount({ prefix: '/swarm/ui', options, view: view.view, logger: silent }) as readonly WebRoute[];
  return { routes, view, node };
}

function route(routes: readonly WebRoute[], method: string, path: string): WebRoute['handle'] {
  const found = routes.find((candidate) => candidate.path === path && [candidate.method].flat().includes(method as never));
  if (!found) throw new Error(`no route ${method} ${path}`);
  return found.handle;
}

describe('web extension "ui"', () => {
  it('is registered by the plugin under the name ui', () => {
    expect(plugin.apiVersion).toBe('^2.0.0');
    expect(pluginProviders(plugin).names('swarm:WebExtension')).toEqual(['ui']);
  });

  it('serves the page with a strict content policy, compressed as the browser accepts, revalidated by ETag', async () => {
    const { routes } = mount();
    const page = route(routes, 'GET', '/');
    const plain = await callRoute(page, { path: '/' });
    expect(plain.status).toBe(200);
    expect(plain.headers['Content-Type']).toBe('text/html; charset=utf-8');
    expect(plain.headers['Cache-Control']).toBe('no-cache');
    expect(plain.headers['Content-Security-Policy']).toContain("script-src 'self'");
    expect(plain.headers['Content-Security-Policy']).toContain("frame-ancestors 'none'");
    const script = /src="assets\/(app-[A-Z0-9]+\.js)"/.exec(plain.body.toString())![1]!;
    const brotli = await callRoute(page, { path: '/', headers: { 'accept-encoding': 'gzip, deflate, br' } });
    expect(brotli.headers['Content-Encoding']).toBe('br');
    expect(brotliDecompressSync(brotli.body).toString()).toBe(plain.body.toString());
    const again = await callRoute(page, { path: '/', headers: { 'if-none-match': plain.headers.ETag } });
    expect(again.status).toBe(304);

    const assets = route(routes, 'GET', '/assets/*');
    const js = await callRoute(assets, { path: `/assets/${script}`, headers: { 'accept-encoding': 'gzip' } });
    expect(js.headers).toMatchObject({
      'Content-Type': 'text/javascript; charset=utf-8',
      'Content-Encoding': 'gzip',
      'Cache-Control': 'public, max-age=31536000, immutable',
    });
    await expect(callRoute(assets, { path: '/assets/nope.js' })).rejects.toThrow('no such file: /assets/nope.js');
  });

  it('explains docker run options or a container’s own config with the host’s text', async () => {
    const { routes, view, node } = mount();
    const explain = route(routes, 'POST', '/api/explain');
    const answer = (await callRoute(explain, { method: 'POST', body: { args: ['-m', '1g', 'nginx'] } })).json<ExplainAnswer>();
    expect(answer).toMatchObject({ text: 'explained nginx\n', image: 'nginx', explanation: { chosen: 'node1' } });
    const container = node.addContainer('web', 'running', { config: { Image: 'redis', Env: ['constraint:zone==a'] } });
    await callRoute(explain, { method: 'POST', body: { container: container.id } });
    expect(view.explained.at(-1)).toEqual({ Image: 'redis', Env: ['constraint:zone==a'] });
    await expect(callRoute(explain, { method: 'POST', body: { args: 'nginx' } })).rejects.toThrow(/the body must be \{"args"/);
    await expect(callRoute(explain, { method: 'POST', body: { args: [] } })).rejects.toThrow(/type docker run options and an image/);
    await expect(callRoute(explain, { method: 'POST', body: { container: 'gone' } })).rejects.toThrow('No such container: gone');
    await expect(callRoute(explain, { method: 'POST', body: { args: ['--bad', 'x'] } })).rejects.toThrow("unknown option '--bad'");
  });

  it('tells a container’s details and placement, never its environment', async () => {
    const { routes, node } = mount();
    const container = node.addContainer('web', 'running', {
      labels: { 'com.docker.swarm.id': 'abc' },
      config: {
        Image: 'busybox:local',
        Env: ['SECRET=1'],
        HostConfig: { Memory: 2 ** 20, RestartPolicy: { Name: 'on-failure', MaximumRetryCount: 3 } },
      },
      summary: {
        Id: 'x',
        Names: ['/web'],
        Image: 'busybox:local',
        Created: 7,
        Command: 'sleep 60',
        Status: 'Up 3 minutes',
        Ports: [{ IP: '127.0.0.2', PrivatePort: 80, PublicPort: 8080, Type: 'tcp' }],
      },
    });
    const details = (
      await callRoute(route(routes, 'GET', '/api/containers/:id'), { params: { id: container.id } })
    ).json<ContainerDetails>();
    expect(details).toEqual({
      container: {
        id: container.id.slice(0, 12),
        name: 'web',
        image: 'busybox:local',
        state: 'running',
        ports: ['127.0.0.2:8080->80/tcp'],
      },
      node: { name: 'node1', addr: '127.0.0.2:2375' },
      status: 'Up 3 minutes',
      created: 7,
      command: 'sleep 60',
      restartPolicy: 'on-failure:3',
      memory: 2 ** 20,
      cpus: 0,
      labels: { 'com.docker.swarm.id': 'abc' },
      placement: { reschedulePolicy: 'on-node-failure', constraints: ['zone==a'], affinities: [], history: [] },
    });
    expect(JSON.stringify(details)).not.toContain('SECRET');
  });

  it('reports plugins, discovery, replication, metrics and the cluster rows', async () => {
    const { routes } = mount();
    const status = (await callRoute(route(routes, 'GET', '/api/status'), {})).json<StatusAnswer>();
    expect(status).toMatchObject({
      discovery: { state: 'ok', entries: 1 },
      replication: { enabled: false, role: 'primary' },
      clusterRows: [['Strategy', 'spread']],
    });
  });

  it('is read-only unless the config says readOnly: false, and refuses settings it does not know', () => {
    expect(() => mount({ readonly: false })).toThrow('unknown setting ui.readonly; known: readOnly');
    expect(() => mount({ readOnly: 'no' })).toThrow('ui.readOnly must be true or false, got "no"');
    expect(() => mount({ readOnly: false })).not.toThrow();
  });
});
