import { describe, expect, it } from 'vitest';
import type { Container } from '@swarm/plugin-sdk';
import { fakeNode } from '@swarm/plugin-sdk/testing';
import { RowTexts, StatusRowTexts } from '../src/api/row-texts.js';

describe('RowTexts (docker ps rows as JSON)', () => {
  const node = fakeNode({ name: 'node1', containers: [{ name: 'web' }] });
  const web = node.containers()[0]!;
  let built = 0;
  const present = (container: Container) => {
    built++;
    return { Id: container.id, Status: container.node.isHealthy() ? 'Up' : 'Host Down' };
  };

  it('builds a row once while its container is unchanged, again when the summary or labels are replaced', () => {
    const rows = new RowTexts();
    built = 0;
    const first = rows.text(web, present);
    expect(rows.text(web, present)).toBe(first);
    expect(built).toBe(1);
    rows.text({ ...web, summary: { ...web.summary, Status: 'Exited (0)' } }, present);
    rows.text({ ...web, labels: { app: 'new' } }, present);
    expect(built).toBe(3);
  });

  it("builds it again when the node's health, name or IP differs", () => {
    const rows = new RowTexts();
    built = 0;
    rows.text(web, present);
    const down = { ...web, node: fakeNode({ name: 'node1', healthy: false }) };
    expect(JSON.parse(rows.text(down, present))).toEqual({ Id: web.id, Status: 'Host Down' });
    rows.text({ ...web, node: fakeNode({ name: 'node9' }) }, present);
    expect(built).toBe(3);
  });
});

describe('StatusRowTexts (docker info SystemStatus as JSON)', () => {
  type Row = [string, string];
  const nodeRows = (name: string, status: string): Row[] => [
    [` ${name}`, '10.0.0.1:2375'],
    ['  └ Status', status],
    ['  └ Containers', '3 (3 Running, 0 Paused, 0 Stopped)'],
  ];
  const text = (parts: Buffer[]) => Buffer.concat(parts).toString('utf8');

  it('encodes the rows as JSON.stringify does, whatever objects they are', () => {
    const rows: Row[] = [['Role', 'primary'], ['Nodes', '2'], ...nodeRows('a', 'Healthy'), ...nodeRows('b', 'Unhealthy')];
    const encoder = new StatusRowTexts();
    expect(text(encoder.encode(rows))).toBe(JSON.stringify(rows));
    expect(text(encoder.encode([]))).toBe('[]');
    expect(text(encoder.encode(nodeRows('only', 'Healthy')))).toBe(JSON.stringify(nodeRows('only', 'Healthy')));
  });

  it("keeps a node's encoding while its rows are the same objects, and encodes again when one is replaced or added", () => {
    const encoder = new StatusRowTexts();
    const a = nodeRows('a', 'Healthy');
    const b = nodeRows('b', 'Healthy');
    const head: Row[] = [['Nodes', '2']];
    const first = encoder.encode([...head, ...a, ...b]);
    const again = encoder.encode([...head, ...a, ...b]);
    // the same buffers come back for both nodes: nothing was encoded again
    expect(again[2]).toBe(first[2]);
    expect(again[3]).toBe(first[3]);
    const bDown: Row[] = [b[0]!, ['  └ Status', 'Unhealthy'], b[2]!];
    const changed = [...head, ...a, ...bDown];
    expect(text(encoder.encode(changed))).toBe(JSON.stringify(changed));
    const longer = [...head, ...a, ['  └ Error', 'refused'] as Row, ...b];
    expect(text(encoder.encode(longer))).toBe(JSON.stringify(longer));
    const reordered = [...head, ...b, ...a];
    expect(text(encoder.encode(reordered))).toBe(JSON.stringify(reordered));
  });
});
