import { describe, expect, it } from 'vitest';
import { shellWords } from '../page/src/explain/shell-words.js';
import { columnHeight, columnsFor, filterNodes, groupNodes, labelKeys, layoutMap, SIZES, visibleItems } from '../page/src/map/layout.js';
import { viewerText } from '../page/src/viewer/viewer-text.js';
import type { WireContainer, WireNode } from '../src/wire.js';

function container(name: string, image = 'busybox'): WireContainer {
  return { id: `${name}-id`, name, image, state: 'running', ports: [] };
}

function node(name: string, options: Partial<WireNode> = {}): WireNode {
  return {
    key: name,
    id: name,
    name,
    addr: `10.0.0.${name.replace(/\D/g, '')}:2375`,
    status: 'healthy',
    labels: {},
    cpus: { used: 0, total: 2 },
    memory: { used: 0, total: 1 },
    containers: [],
    ...options,
  };
}

const nodes = [
  node('node1', { labels: { zone: 'a', storagedriver: 'vfs' }, containers: [container('web-1', 'nginx'), container('db', 'redis')] }),
  node('node2', { labels: { zone: 'b' }, status: 'unhealthy', error: 'refused', containers: [container('web-2', 'nginx')] }),
  node('node10', { containers: [] }),
];

describe('map filter', () => {
  it('keeps nodes by name, address or label, and containers by name or image (all words must match)', () => {
    expect(filterNodes(nodes, { text: '', health: 'all' }).map((item) => item.node.name)).toEqual(['node1', 'node2', 'node10']);
    expect(filterNodes(nodes, { text: 'zone=a', health: 'all' }).map((item) => item.node.name)).toEqual(['node1']);
    expect(filterNodes(nodes, { text: 'ZONE=', health: 'all' }).map((item) => item.node.name)).toEqual(['node1', 'node2']);
    expect(filterNodes(nodes, { text: '10.0.0.10', health: 'all' }).map((item) => item.node.name)).toEqual(['node10']);
    const web = filterNodes(nodes, { text: 'nginx zone=a', health: 'all' });
    expect(web.map((item) => [item.node.name, item.containers.map((c) => c.name), item.total])).toEqual([['node1', ['web-1'], 2]]);
    expect(filterNodes(nodes, { text: 'nothing', health: 'all' })).toEqual([]);
    expect(filterNodes(nodes, { text: '', health: 'unhealthy' }).map((item) => item.node.name)).toEqual(['node2']);
    expect(filterNodes(nodes, { text: '', health: 'healthy' }).map((item) => item.node.name)).toEqual(['node1', 'node10']);
  });

  it('groups by health or by a label, and offers the label keys nodes have (not the standard ones)', () => {
    const shown = filterNodes(nodes, { text: '', health: 'all' });
    expect(groupNodes(shown, 'status').map((group) => [group.title, group.nodes.length])).toEqual([
      ['Healthy', 2],
      ['Unhealthy', 1],
    ]);
    expect(groupNodes(shown, 'label:zone').map((group) => group.title)).toEqual(['no zone label', 'zone=a', 'zone=b']);
    expect(labelKeys(nodes)).toEqual(['zone']);
  });
});

describe('map layout', () => {
  it('lays 1,000 nodes out in rows as tall as their tallest column, and finds the visible ones without scanning all', () => {
    const many = Array.from({ length: 1000 }, (_, index) =>
      node(`n${index}`, { containers: Array.from({ length: index % 12 }, (_, c) => container(`c${c}`)) }),
    );
    const shown = filterNodes(many, { text: '', health: 'all' });
    const columns = columnsFor(1200);
    expect(columns).toBe(4);
    const layout = layoutMap(groupNodes(shown, ''), columns, new Set(), false);
    expect(layout.items).toHaveLength(250);
    const first = layout.items[0]!;
    expect(first.kind === 'row' && first.height).toBe(Math.max(...shown.slice(0, 4).map((item) => columnHeight(item, false, false))));
    // at most 8 cards, then "show all"
    expect(columnHeight(shown[11]!, false, false) - columnHeight(shown[8]!, false, false)).toBe(SIZES.more);
    expect(columnHeight(shown[11]!, true, false) - columnHeight(shown[11]!, false, false)).toBe(3 * (SIZES.card + SIZES.cardGap));
    const [start, end] = visibleItems(layout.items, 50_000, 900, 0);
    expect(end - start).toBeLessThan(6);
    const visible = layout.items.slice(start, end);
    expect(visible[0]!.top).toBeLessThanOrEqual(50_000);
    expect(visible.at(-1)!.top + visible.at(-1)!.height).toBeGreaterThanOrEqual(50_900);
  });

  it('puts a header above each group', () => {
    const layout = layoutMap(groupNodes(filterNodes(nodes, { text: '', health: 'all' }), 'status'), 10, new Set(), true);
    expect(layout.items.map((item) => item.kind)).toEqual(['group', 'row', 'group', 'row']);
  });
});

describe('explain input', () => {
  it('splits words as a shell does and drops a pasted docker run or swarm schedule --explain', () => {
    expect(shellWords('-m 1g -e constraint:zone==a -p 80:80 nginx')).toEqual([
      '-m',
      '1g',
      '-e',
      'constraint:zone==a',
      '-p',
      '80:80',
      'nginx',
    ]);
    expect(shellWords(`docker run -e 'affinity:container!=web 1' -l "a=b \\"c\\"" busybox sh -c echo\\ hi`)).toEqual([
      '-e',
      'affinity:container!=web 1',
      '-l',
      'a=b "c"',
      'busybox',
      'sh',
      '-c',
      'echo hi',
    ]);
    expect(shellWords('swarm schedule --explain -m 1g busybox')).toEqual(['-m', '1g', 'busybox']);
    expect(shellWords("''")).toEqual(['']);
    expect(() => shellWords('-e "open')).toThrow('unclosed double quote');
  });

  it('says who is watching: user, how they authenticated, their teams (not system groups) and roles', () => {
    expect(
      viewerText({
        user: 'alice',
        method: 'TLS',
        groups: ['team-a', 'system:authenticated'],
        roles: ['edit on team team-a'],
        scoped: true,
      }),
    ).toEqual({
      user: 'alice',
      how: 'TLS client certificate',
      groups: 'team-a',
      roles: 'edit on team team-a',
      scope: 'Showing only what you may see',
    });
    expect(viewerText({ user: 'system:anonymous', method: '', groups: ['system:unauthenticated'], roles: [], scoped: false })).toEqual({
      user: 'system:anonymous',
      how: 'not authenticated',
      groups: 'none',
      roles: 'none reported',
      scope: 'Showing everything',
    });
  });
});
