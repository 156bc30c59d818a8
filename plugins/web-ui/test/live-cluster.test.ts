import { afterEach, describe, expect, it } from 'vitest';
import { LiveCluster } from '../src/live-cluster.js';
import type { ActivityItem, NodesMessage, SnapshotMessage, WireCluster } from '../src/wire.js';
import { RecordingStream, TestNode, TestView } from './support.js';

const CLUSTER: WireCluster = { version: 'v', apiVersion: '1.3.0', driver: 'test', strategy: 'spread', filters: [], readOnly: true };
const TICK = 10;

let live: LiveCluster | undefined;
afterEach(() => live?.close());

const settle = (ms = 4 * TICK) => new Promise((resolve) => setTimeout(resolve, ms));

function setup(nodes: TestNode[]): { view: TestView; live: LiveCluster } {
  const view = new TestView();
  view.nodeList = nodes;
  live = new LiveCluster({
    view: view.view,
    cluster: CLUSTER,
    options: { tickMs: TICK, keepAliveMs: 60_000, lingerMs: 0 },
  });
  return { view, live };
}

describe('live cluster stream', () => {
  it('starts with a snapshot of every node and its containers, sorted by name', () => {
    const node1 = new TestNode('node1', { labels: { zone: 'a' } });
    node1.addContainer('web2');
    node1.addContainer('web1', 'exited');
    const { live } = setup([node1, new TestNode('node2')]);
    const stream = new RecordingStream();
    live.serve(stream, new AbortController().signal);
    expect(stream.text.startsWith('retry: 2000\n\n')).toBe(true);
    const [snapshot] = stream.parsed<SnapshotMessage>('snapshot');
    expect(snapshot!.cluster).toEqual(CLUSTER);
    expect(snapshot!.nodes.map((node) => node.name)).toEqual(['node1', 'node2']);
    expect(snapshot!.nodes[0]).toMatchObject({
      key: 'n1',
      status: 'healthy',
      labels: { storagedriver: 'vfs', zone: 'a' },
      cpus: { used: 1, total: 4 },
      memory: { used: 2 ** 30, total: 8 * 2 ** 30 },
      containers: [
        { name: 'web1', state: 'exited', image: 'busybox:local' },
        { name: 'web2', state: 'running' },
      ],
    });
  });

  it('sends only the nodes that reported a change, coalesced per tick, and nodes that come and go', async () => {
    const node1 = new TestNode('node1');
    const node2 = new TestNode('node2');
    const { view, live } = setup([node1, node2]);
    const stream = new RecordingStream();
    live.serve(stream, new AbortController().signal);
    await settle();
    stream.text = '';
    node1.addContainer('new');
    node1.changed();
    node1.changed();
    await settle();
    const [message, ...more] = stream.parsed<NodesMessage>('nodes');
    expect(more).toEqual([]);
    expect(message!.changed.map((node) => [node.name, node.containers.map((container) => container.name)])).toEqual([['node1', ['new']]]);
    stream.text = '';
    view.nodeList = [node1, new TestNode('node3')];
    await settle();
    const [membership] = stream.parsed<NodesMessage>('nodes');
    expect(membership!.removed).toEqual(['n2']);
    expect(membership!.changed.map((node) => node.name)).toEqual(['node3']);
  });

  it('sees a node change through its next snapshot, and follows events about it at once', async () => {
    const quiet = new TestNode('node1');
    const { view, live } = setup([quiet]);
    const stream = new RecordingStream();
    live.serve(stream, new AbortController().signal);
    await settle();
    stream.text = '';
    quiet.nodeStatus = 'unhealthy';
    quiet.error = 'connection refused';
    quiet.changed();
    await settle(6 * TICK);
    expect(stream.parsed<NodesMessage>('nodes')[0]!.changed[0]).toMatchObject({ status: 'unhealthy', error: 'connection refused' });
    stream.text = '';
    quiet.addContainer('web');
    view.emit({
      Type: 'container',
      Action: 'create',
      id: 'abc',
      Actor: { ID: 'abc', Attributes: { name: 'web' } },
      timeNano: 5e15,
      node: { Name: 'node1', Id: quiet.id, Addr: quiet.addr, Ip: quiet.ip },
    });
    view.emit({
      Type: 'container',
      Action: 'exec_start: sh',
      id: 'abc',
      node: { Name: 'node1', Id: quiet.id, Addr: quiet.addr, Ip: quiet.ip },
    });
    await settle(2 * TICK);
    expect(stream.parsed<NodesMessage>('nodes')[0]!.changed[0]!.containers.map((container) => container.name)).toEqual(['web']);
    expect(stream.parsed<ActivityItem[]>('activity')).toEqual([
      [{ time: 5e9, type: 'container', action: 'create', node: 'node1', name: 'web', id: 'abc' }],
    ]);
  });

  it('holds back a client that does not keep up, and sends it a fresh snapshot once it drained if it missed changes', async () => {
    const node1 = new TestNode('node1');
    const { live } = setup([node1]);
    const slow = new RecordingStream();
    const fast = new RecordingStream();
    slow.accepting = false;
    live.serve(slow, new AbortController().signal);
    live.serve(fast, new AbortController().signal);
    slow.text = '';
    fast.text = '';
    node1.addContainer('a');
    node1.changed();
    await settle();
    expect(fast.parsed('nodes')).toHaveLength(1);
    expect(slow.text).toBe('');
    slow.drain();
    await settle();
    const [snapshot] = slow.parsed<SnapshotMessage>('snapshot');
    expect(snapshot!.nodes[0]!.containers.map((container) => container.name)).toEqual(['a']);
  });

  it('follows the cluster only while someone watches', async () => {
    const node1 = new TestNode('node1');
    const { view, live } = setup([node1]);
    const leave = new AbortController();
    live.serve(new RecordingStream(), leave.signal);
    expect(view.listeners.size).toBe(1);
    expect(live.connected).toBe(1);
    leave.abort();
    expect(live.connected).toBe(0);
    expect(view.listeners.size).toBe(0);
  });

  it('keeps following a while after the last browser left, so a reload finds the columns ready', async () => {
    const node1 = new TestNode('node1');
    const view = new TestView();
    view.nodeList = [node1];
    live = new LiveCluster({ view: view.view, cluster: CLUSTER, options: { tickMs: TICK, lingerMs: 5 * TICK } });
    const leave = new AbortController();
    live.serve(new RecordingStream(), leave.signal);
    leave.abort();
    await settle(2 * TICK);
    node1.addContainer('while-away');
    node1.changed();
    const reload = new RecordingStream();
    const again = new AbortController();
    live.serve(reload, again.signal);
    expect(reload.parsed<SnapshotMessage>('snapshot')[0]!.nodes[0]!.containers.map((container) => container.name)).toEqual(['while-away']);
    again.abort();
    await settle(8 * TICK);
    expect(view.listeners.size).toBe(0);
  });

  it('ends every stream when closed', () => {
    const { live } = setup([new TestNode('node1')]);
    const stream = new RecordingStream();
    live.serve(stream, new AbortController().signal);
    live.close();
    expect(stream.ended).toBe(true);
    expect(live.connected).toBe(0);
  });
});
