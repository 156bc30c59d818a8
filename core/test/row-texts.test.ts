import { describe, expect, it } from 'vitest';
import type { Container } from '@swarm/plugin-sdk';
import { fakeNode } from '@swarm/plugin-sdk/testing';
import { RowTexts } from '../src/api/row-texts.js';

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

  it('shows a STATUS text the driver updated in place ("Up 2 minutes" ageing)', () => {
    const rows = new RowTexts();
    const summary = { ...web.summary, Status: 'Up 1 minute' };
    const aging = { ...web, summary };
    const shown = (container: Container) => ({ Status: container.summary.Status });
    expect(JSON.parse(rows.text(aging, shown))).toEqual({ Status: 'Up 1 minute' });
    summary.Status = 'Up 2 minutes';
    expect(JSON.parse(rows.text(aging, shown))).toEqual({ Status: 'Up 2 minutes' });
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
