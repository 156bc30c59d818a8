import type { Container, Logger } from '@swarm/plugin-sdk';
import { TEAM_LABEL } from '@swarm/plugin-sdk/access';
import type { WebRoute, WebViewer } from '@swarm/plugin-sdk/web';
import { describe, expect, it } from 'vitest';
import { UiExtension } from '../src/index.js';
import type { ContainerDetails, StatusAnswer } from '../src/wire.js';
import { callRoute, TestNode, TestView } from './support.js';

// Container details, explain and status under access control: what a viewer may not see does not
// exist for them.

const ignore = (): void => undefined;
const silent: Logger = { level: 'silent', trace: ignore, debug: ignore, info: ignore, warn: ignore, error: ignore, child: () => silent };

function teamViewer(team: string, scoped = true): WebViewer {
  return {
    user: `${team}-user`,
    groups: [team],
    method: 'TLS',
    roles: [],
    scoped,
    sees: (container: Container) => !scoped || container.labels[TEAM_LABEL] === team,
    explain: () => {
      throw new Error('this test explains nothing');
    },
  };
}

function mount() {
  const view = new TestView();
  const node = new TestNode('node1');
  view.nodeList = [node];
  // `-e X` as the CLI reads it, enough for the dry runs here
  const runConfig = (args: readonly string[]) => ({
    Image: args.at(-1)!,
    Env: args.flatMap((arg, at) => (args[at - 1] === '-e' ? [arg] : [])),
  });
  const routes = new UiExtension().mount({
    prefix: '/swarm/ui',
    options: {},
    view: { ...view.view, runConfig },
    logger: silent,
  }) as readonly WebRoute[];
  const route = (method: string, path: string) =>
    routes.find((item) => item.path === path && [item.method].flat().includes(method as never))!.handle;
  // IDs chosen so that `abc` is a prefix of alice's and bob's: a prefix must not tell alice bob's exists
  const alice = node.addContainer('alice-web', 'running', { id: 'abc1'.padEnd(64, '1'), labels: { [TEAM_LABEL]: 'team-a' } });
  const bob = node.addContainer('bob-db', 'exited', { id: 'abc2'.padEnd(64, '2'), labels: { [TEAM_LABEL]: 'team-b' } });
  // a viewer whose dry run is the view's, as the host's is once it has judged the config for them
  const viewerOf = (team: string): WebViewer => ({ ...teamViewer(team), explain: (config) => view.view.explain(config) });
  return { view, node, route, alice, bob, viewerOf };
}

describe('the web view’s routes under access control', () => {
  it('answers a container the viewer may not see with the same 404 as a missing one, and never finds it by prefix', async () => {
    const { route, alice, bob } = mount();
    const details = route('GET', '/api/containers/:id');
    const asAlice = teamViewer('team-a');
    const own = await callRoute(details, { params: { id: alice.id }, viewer: asAlice });
    expect(own.json<ContainerDetails>().container.name).toBe('alice-web');
    const hidden = callRoute(details, { params: { id: bob.id }, viewer: asAlice });
    await expect(hidden).rejects.toThrow(`No such container: ${bob.id}`);
    await expect(hidden).rejects.toMatchObject({ code: 'SWARM_ERR_NOT_FOUND' });
    await expect(callRoute(details, { params: { id: 'f'.repeat(64) }, viewer: asAlice })).rejects.toMatchObject({
      code: 'SWARM_ERR_NOT_FOUND',
    });
    // `abc` names two containers, but alice sees one: it is hers (the other does not exist for her)
    expect((await callRoute(details, { params: { id: 'abc' }, viewer: asAlice })).json<ContainerDetails>().container.name).toBe(
      'alice-web',
    );
    // without access control, or for a viewer who sees everything, the prefix is ambiguous as before
    await expect(callRoute(details, { params: { id: 'abc' } })).rejects.toThrow('No such container: abc');
    await expect(callRoute(details, { params: { id: 'abc' }, viewer: teamViewer('admins', false) })).rejects.toThrow(
      'No such container: abc',
    );
    expect((await callRoute(details, { params: { id: bob.id } })).json<ContainerDetails>().container.name).toBe('bob-db');
  });

  it('explains only a container the viewer sees', async () => {
    const { route, view, alice, bob, viewerOf } = mount();
    const explain = route('POST', '/api/explain');
    await callRoute(explain, { method: 'POST', body: { container: alice.id }, viewer: viewerOf('team-a') });
    expect(view.explained).toHaveLength(1);
    await expect(callRoute(explain, { method: 'POST', body: { container: bob.id }, viewer: viewerOf('team-a') })).rejects.toThrow(
      `No such container: ${bob.id}`,
    );
    expect(view.explained).toHaveLength(1);
  });

  it('refuses a dry run that names a container the viewer may not see, as the host’s explain does', async () => {
    const { route, view, node, alice, bob, viewerOf } = mount();
    const explain = route('POST', '/api/explain');
    const asAlice = viewerOf('team-a');
    const dryRun = (args: string[], viewer?: WebViewer) =>
      callRoute(explain, { method: 'POST', body: { args }, ...(viewer ? { viewer } : {}) });
    await dryRun(['-e', 'affinity:container==alice-web', 'busybox'], asAlice);
    await dryRun(['-e', `affinity:container!=${alice.id.slice(0, 12)}`, 'busybox'], asAlice);
    await dryRun(['-e', 'affinity:container==web*', 'busybox'], asAlice);
    expect(view.explained).toHaveLength(3);
    for (const named of ['bob-db', bob.id, 'abc2', 'nobody']) {
      await expect(dryRun(['-e', `affinity:container==${named}`, 'busybox'], asAlice)).rejects.toThrow(`No such container: ${named}`);
    }
    // links, volumes-from and container: modes name containers too (alice's own config here)
    const linked = node.addContainer('alice-linked', 'running', {
      labels: { [TEAM_LABEL]: 'team-a' },
      config: { Image: 'busybox', HostConfig: { Links: ['/bob-db:/alice-linked/db'], NetworkMode: 'container:alice-web' } },
    });
    await expect(callRoute(explain, { method: 'POST', body: { container: linked.id }, viewer: asAlice })).rejects.toThrow(
      'No such container: bob-db',
    );
    // without access control the dry run goes through as before
    await dryRun(['-e', 'affinity:container==bob-db', 'busybox']);
    expect(view.explained).toHaveLength(4);
  });

  it('dry-runs a viewer’s config with the host’s explain for them, which judges pattern affinities among what they see', async () => {
    const { route, view } = mount();
    const explain = route('POST', '/api/explain');
    const judged: unknown[] = [];
    const viewer: WebViewer = {
      ...teamViewer('team-a'),
      explain: (config) => {
        judged.push(config);
        return { ...view.view.explain(config), text: 'as the host explains it for team-a\n' };
      },
    };
    const answer = await callRoute(explain, { method: 'POST', body: { args: ['-e', 'affinity:container==/bob.*/', 'busybox'] }, viewer });
    expect(answer.json<{ text: string }>().text).toBe('as the host explains it for team-a\n');
    expect(judged).toEqual([{ Image: 'busybox', Env: ['affinity:container==/bob.*/'] }]);
    // without access control the view's own dry run answers
    const plain = await callRoute(explain, { method: 'POST', body: { args: ['busybox'] } });
    expect(plain.json<{ text: string }>().text).toBe('explained busybox\n');
  });

  it('counts only the viewer’s containers in the status figures', async () => {
    const { route } = mount();
    const status = route('GET', '/api/status');
    const forBob = (await callRoute(status, { viewer: teamViewer('team-b') })).json<StatusAnswer>();
    expect(forBob.metrics.containers).toEqual({ total: 1, running: 0 });
    const forAlice = (await callRoute(status, { viewer: teamViewer('team-a') })).json<StatusAnswer>();
    expect(forAlice.metrics.containers).toEqual({ total: 1, running: 1 });
    // unscoped: the manager's own figures, untouched
    expect((await callRoute(status, {})).json<StatusAnswer>().metrics.containers).toEqual({ total: 0, running: 0 });
  });
});
