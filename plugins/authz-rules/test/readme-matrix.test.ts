import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ACTION_TABLE, OPEN_ACTIONS } from '@swarm/authz-rules';

// The README's role matrix is src/roles.ts written out: this keeps the two from drifting apart.
const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

function matrixRow(label: string): { object: string[]; all: string[] } {
  const line = readme.split('\n').find((candidate) => candidate.startsWith(`| ${label} |`));
  if (line === undefined) throw new Error(`README has no matrix row ${label}`);
  const [object = '', all = ''] = line.split('*all*:');
  // An action is a backticked `kind.verb` (`container.archive.write` has two dots).
  const actions = (text: string) => [...text.matchAll(/`([a-z]+\.[a-z.]+)`/g)].map((match) => match[1]!);
  return { object: actions(object), all: actions(all) };
}

describe('the README role matrix', () => {
  it('lists exactly the actions of src/roles.ts, with their role and reach', () => {
    const fromReadme = new Map<string, string>();
    for (const role of ['view', 'operate', 'edit'] as const) {
      const row = matrixRow(`\`${role}\``);
      for (const action of row.object) fromReadme.set(action, `${role} object`);
      for (const action of row.all) fromReadme.set(action, `${role} all`);
    }
    const fromTable = new Map([...ACTION_TABLE].map(([action, need]) => [action, `${need.role} ${need.reach}`]));
    expect(Object.fromEntries([...fromReadme].sort())).toEqual(Object.fromEntries([...fromTable].sort()));
  });

  it('lists the actions open to every caller', () => {
    expect(matrixRow('everyone, anonymous included').object.sort()).toEqual([...OPEN_ACTIONS].sort());
  });
});
