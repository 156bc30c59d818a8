import { describe, expect, it } from 'vitest';
import { StatusRowTexts } from '../src/api/status-row-texts.js';

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
    // the same block comes back: nothing was encoded or copied again
    expect(again).toHaveLength(3);
    expect([again[1]!.buffer, again[1]!.byteOffset]).toEqual([first[1]!.buffer, first[1]!.byteOffset]);
    const bDown: Row[] = [b[0]!, ['  └ Status', 'Unhealthy'], b[2]!];
    const changed = [...head, ...a, ...bDown];
    expect(text(encoder.encode(changed))).toBe(JSON.stringify(changed));
    const longer = [...head, ...a, ['  └ Error', 'refused'] as Row, ...b];
    expect(text(encoder.encode(longer))).toBe(JSON.stringify(longer));
    const reordered = [...head, ...b, ...a];
    expect(text(encoder.encode(reordered))).toBe(JSON.stringify(reordered));
  });

  it('encodes thousands of nodes in blocks, and copies again only the block of a node that changed', () => {
    const encoder = new StatusRowTexts();
    const nodes = Array.from({ length: 1000 }, (_, index) => nodeRows(`node${String(index).padStart(4, '0')}`, 'Healthy'));
    const head: Row[] = [
      ['Role', 'primary'],
      ['Nodes', '1000'],
    ];
    const first = encoder.encode([...head, ...nodes.flat()]);
    expect(text(first)).toBe(JSON.stringify([...head, ...nodes.flat()]));
    expect(first.length).toBeLessThan(20);
    nodes[500] = nodeRows('node0500', 'Unhealthy');
    const second = encoder.encode([...head, ...nodes.flat()]);
    expect(text(second)).toBe(JSON.stringify([...head, ...nodes.flat()]));
    const copiedAgain = second.filter(
      (part, index) => part.buffer !== first[index]!.buffer || part.byteOffset !== first[index]!.byteOffset,
    );
    expect(copiedAgain).toHaveLength(1);
  });

  it('compares with the rows as they were encoded, even when the caller reuses its array', () => {
    const encoder = new StatusRowTexts();
    const a = nodeRows('a', 'Healthy');
    const b = nodeRows('b', 'Healthy');
    const rows: Row[] = [['Nodes', '2'], ...a, ...b];
    encoder.encode(rows);
    rows[5] = ['  └ Status', 'Unhealthy'];
    expect(text(encoder.encode(rows))).toBe(JSON.stringify(rows));
    // a node's rows shrink and the next node's move up by one
    const shorter: Row[] = [['Nodes', '2'], a[0]!, a[1]!, ...b];
    expect(text(encoder.encode(shorter))).toBe(JSON.stringify(shorter));
    expect(text(encoder.encode(rows))).toBe(JSON.stringify(rows));
  });
});
