import { TEAM_LABEL } from '@swarm/plugin-sdk/access';
import type { Container } from '@swarm/plugin-sdk';
import type { WebViewer } from '@swarm/plugin-sdk/web';
import { afterEach, describe, expect, it } from 'vitest';
import { LiveCluster } from '../src/live-cluster.js';
import type { ActivityItem, NodesMessage, SnapshotMessage, WireCluster, WireNode, WireViewer } from '../src/wire.js';
import { RecordingStream, TestNode, TestView } from './support.js';

// The live stream under access control: each browser gets only what its viewer sees, and browsers
// that see everything keep sharing one frame per change.

const CLUSTER: WireCluster = { version: 'v', apiVersion: '1.3.0', driver: 'test', strategy: 'spread', filters: [], readOnly: true };
const TICK = 10;
const settle = (ms = 4 * TICK) => new Promise((resolve) => setTimeout(resolve, ms));

let live: LiveCluster | undefined;
afterEach(() => live?.close());

/** A viewer of one team, as the host builds it from the `rules` authorizer; counts its `sees` calls. */
function teamViewer(user: string, team: string, scoped = true): WebViewer & { calls: number } {
  const viewer = {
    user,
    groups: [team, 'system:authenticated'],
    method: 'TLS',
    roles: [`edit on team ${team}`],
    scoped,
    calls: 0,
    sees(container: Container): boolean {
      viewer.calls++;
      return !scoped || container.labels[TEAM_LABEL] === team;
    },
  };
  return viewer;
}

const team = (name: string) => ({ labels: { [TEAM_LABEL]: name } });
const names = (node: WireNode | undefined) => node?.containers.map((container) => container.name);

function setup(): { view: TestView; node1: TestNode; node2: TestNode } {
  const node1 = new TestNode('node1');
  const node2 = new TestNode('node2');
  node1.addContainer('alice-web', 'running', team('team-a'));
  node1.addContainer('bob-db', 'running', team('team-b'));
  node2.addContainer('bob-cache', 'running', team('team-b'));
  node2.addContainer('legacy');
  const view = new TestView();
  view.nodeList = [node1, node2];
  live = new LiveCluster({ view: view.view, cluster: CLUSTER, options: { tickMs: TICK, keepAliveMs: 60_000, lingerMs: 0 } });
  return { view, node1, node2 };
}

function watch(viewer?: WebViewer): RecordingStream {
  const stream = new RecordingStream();
  live!.serve(stream, new AbortController().signal, viewer);
  return stream;
}

function containerEvent(node: TestNode, action: string, id: string, attributes: Record<string, string>) {
  return {
    Type: 'container',
    Action: action,
    id,
    Actor: { ID: id, Attributes: attributes },
    timeNano: 5e15,
    node: { Name: node.name, Id: node.id, Addr: node.addr, Ip: node.ip },
  };
}

describe('the live stream under access control', () => {
  it('tells a viewer who they are, then shows them only their containers; node columns count only those', () => {
    setup();
    const alice = watch(teamViewer('alice', 'team-a'));
    const frames = alice.frames();
    expect(frames.map((frame) => frame.event)).toEqual(['viewer', 'snapshot']);
    expect(JSON.parse(frames[0]!.data)).toEqual({
      user: 'alice',
      method: 'TLS',
      groups: ['team-a', 'system:authenticated'],
      roles: ['edit on team team-a'],
      scoped: true,
    } satisfies WireViewer);
    const [snapshot] = alice.parsed<SnapshotMessage>('snapshot');
    expect(snapshot!.nodes.map((node) => [node.name, names(node)])).toEqual([
      ['node1', ['alice-web']],
      ['node2', []],
    ]);
    expect(alice.text).not.toMatch(/bob|legacy/);
  });

  it('sends no viewer without access control, and the whole cluster to viewers who see everything', () => {
    setup();
    const anonymous = watch();
    const admin = watch(teamViewer('root', 'admins', false));
    expect(anonymous.frames().map((frame) => frame.event)).toEqual(['snapshot']);
    expect(admin.frames().map((frame) => frame.event)).toEqual(['viewer', 'snapshot']);
    const whole = anonymous.parsed<SnapshotMessage>('snapshot')[0]!;
    expect(whole.nodes.map(names)).toEqual([
      ['alice-web', 'bob-db'],
      ['bob-cache', 'legacy'],
    ]);
    expect(admin.frames()[1]).toEqual(anonymous.frames()[0]);
    // a scoped column is the whole one cut down to their cards, byte for byte in the same order
    const bob = watch(teamViewer('bob', 'team-b')).frames()[1]!.data;
    const cut = whole.nodes.map((node) => ({ ...node, containers: node.containers.filter((card) => card.name.startsWith('bob-')) }));
    expect(bob).toBe(JSON.stringify({ cluster: CLUSTER, nodes: cut }));
  });

  it('filters every change for each scoped viewer, and shares the unscoped frame without asking sees', async () => {
    const { node1, node2 } = setup();
    const viewers = { alice: teamViewer('alice', 'team-a'), bob: teamViewer('bob', 'team-b'), admin: teamViewer('root', 'admins', false) };
    const streams = { alice: watch(viewers.alice), bob: watch(viewers.bob), admin: watch(viewers.admin), plain: watch() };
    await settle();
    for (const stream of Object.values(streams)) stream.text = '';
    node1.addContainer('alice-new', 'running', team('team-a'));
    node1.changed();
    node2.addContainer('bob-new', 'running', team('team-b'));
    node2.changed();
    await settle();
    const changed = (stream: RecordingStream) =>
      stream.parsed<NodesMessage>('nodes').flatMap((message) => message.changed.map((node) => [node.name, names(node)]));
    expect(changed(streams.alice)).toEqual([
      ['node1', ['alice-new', 'alice-web']],
      ['node2', []],
    ]);
    expect(changed(streams.bob)).toEqual([
      ['node1', ['bob-db']],
      ['node2', ['bob-cache', 'bob-new']],
    ]);
    expect(changed(streams.plain)).toEqual([
      ['node1', ['alice-new', 'alice-web', 'bob-db']],
      ['node2', ['bob-cache', 'bob-new', 'legacy']],
    ]);
    expect(streams.admin.text).toBe(streams.plain.text);
    expect(viewers.admin.calls).toBe(0);
  });

  it('filters a node once per change for all browsers of one person, asking sees once per container', async () => {
    const { node1 } = setup();
    const first = teamViewer('alice', 'team-a');
    const second = teamViewer('alice', 'team-a');
    const tabs = [watch(first), watch(second), watch(teamViewer('alice', 'team-a'))];
    // the snapshot: one sees per container, for the three tabs together
    expect(first.calls).toBe(4);
    expect(second.calls).toBe(0);
    await settle();
    first.calls = 0;
    node1.addContainer('alice-new', 'running', team('team-a'));
    node1.changed();
    await settle();
    expect(first.calls).toBe(3);
    const texts = tabs.map((tab) => tab.parsed<NodesMessage>('nodes'));
    expect(texts[1]).toEqual(texts[0]);
    expect(texts[2]).toEqual(texts[0]);
  });

  it('shows a scoped viewer activity about their containers and shared objects only', async () => {
    const { view, node1, node2 } = setup();
    const alice = watch(teamViewer('alice', 'team-a'));
    const plain = watch();
    await settle();
    const aliceWeb = node1.containers()[0]!;
    const bobDb = node1.containers()[1]!;
    view.emit(containerEvent(node1, 'start', aliceWeb.id, { name: 'alice-web', [TEAM_LABEL]: 'team-a' }));
    view.emit(containerEvent(node1, 'start', bobDb.id, { name: 'bob-db', [TEAM_LABEL]: 'team-b' }));
    // gone from the cluster: judged by the labels its event carries
    view.emit(containerEvent(node2, 'destroy', 'gone-a', { name: 'alice-old', [TEAM_LABEL]: 'team-a' }));
    view.emit(containerEvent(node2, 'destroy', 'gone-b', { name: 'bob-old', [TEAM_LABEL]: 'team-b' }));
    view.emit({ Type: 'network', Action: 'connect', id: 'n1', Actor: { ID: 'n1', Attributes: { name: 'bob-net', container: bobDb.id } } });
    view.emit({
      Type: 'network',
      Action: 'connect',
      id: 'n2',
      Actor: { ID: 'n2', Attributes: { name: 'team-a-net', container: aliceWeb.id } },
    });
    view.emit({ Type: 'network', Action: 'create', id: 'n3', Actor: { ID: 'n3', Attributes: { name: 'bob-secret-net' } } });
    view.emit({ Type: 'image', Action: 'pull', id: 'busybox:local', Actor: { ID: 'busybox:local', Attributes: {} } });
    view.emit({ Type: 'plugin', Action: 'install', id: 'p', Actor: { ID: 'p', Attributes: { name: 'bob-plugin' } } });
    view.emit({ Action: 'engine_disconnect', node: { Name: 'node2', Id: node2.id, Addr: node2.addr, Ip: node2.ip } });
    await settle();
    const lines = (stream: RecordingStream) =>
      stream
        .parsed<ActivityItem[]>('activity')
        .flat()
        .map((item) => `${item.type} ${item.action} ${item.name ?? ''}`.trim());
    expect(lines(alice)).toEqual([
      'container start alice-web',
      'container destroy alice-old',
      'network connect team-a-net',
      'image pull busybox:local',
      'engine engine_disconnect',
    ]);
    expect(lines(plain)).toHaveLength(10);
  });

  it('sends a scoped viewer who fell behind a snapshot of their own containers once drained', async () => {
    const { node1 } = setup();
    const slow = new RecordingStream();
    slow.accepting = false;
    live!.serve(slow, new AbortController().signal, teamViewer('bob', 'team-b'));
    slow.text = '';
    node1.addContainer('alice-new', 'running', team('team-a'));
    node1.changed();
    await settle();
    expect(slow.text).toBe('');
    slow.drain();
    await settle();
    const [snapshot] = slow.parsed<SnapshotMessage>('snapshot');
    expect(snapshot!.nodes.map(names)).toEqual([['bob-db'], ['bob-cache']]);
  });

  it('hides a container whose view throws (access control fails closed), and lets go of an audience when its browsers leave', async () => {
    const { view } = setup();
    const broken: WebViewer = {
      user: 'x',
      groups: [],
      method: 'token',
      roles: [],
      scoped: true,
      sees: () => {
        throw new Error('authorizer down');
      },
    };
    const leave = new AbortController();
    const stream = new RecordingStream();
    live!.serve(stream, leave.signal, broken);
    expect(stream.parsed<SnapshotMessage>('snapshot')[0]!.nodes.map(names)).toEqual([[], []]);
    leave.abort();
    expect(live!.connected).toBe(0);
    expect(view.listeners.size).toBe(0);
  });
});
