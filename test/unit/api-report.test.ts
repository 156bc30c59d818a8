import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without types
import { budgetProblem, checkReports, CONTRACT_BUDGET } from '../../scripts/api-report.mjs';

// Every change to what the packages export shows in review as a change to `<package>/api/*.api.md`.
describe('public API reports (api-extractor)', () => {
  it('match the built packages; run `npm run api:update` and commit the reports after a deliberate change', () => {
    const problems: string[] = [];
    const changed = (checkReports as (options: { report: (line: string) => void }) => string[])({ report: (line) => problems.push(line) });
    expect({ changed, problems }).toEqual({ changed: [], problems: [] });
  }, 120_000);
});

describe("the SDK main entry's budget", () => {
  const report = (names: number) => Array.from({ length: names }, (_, index) => `export interface Name${index} {\n}\n`).join('\n');
  const problem = budgetProblem as (reportText: string) => string | undefined;

  it('holds at most 80 names', () => {
    expect(CONTRACT_BUDGET).toBe(80);
    expect(problem(report(80))).toBeUndefined();
  });

  it('fails the report check one name past it, saying how many and where the rest goes', () => {
    expect(problem(report(81))).toBe(
      'plugin-sdk: the main entry exports 81 names, over its budget of 80; move what only some plugins need to a subpath',
    );
  });
});
