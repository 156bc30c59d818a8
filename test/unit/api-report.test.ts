import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without types
import { checkReports } from '../../scripts/api-report.mjs';

// Every change to what the packages export shows in review as a change to `<package>/api/*.api.md`.
describe('public API reports (api-extractor)', () => {
  it('match the built packages; run `npm run api:update` and commit the reports after a deliberate change', () => {
    const problems: string[] = [];
    const changed = (checkReports as (options: { report: (line: string) => void }) => string[])({ report: (line) => problems.push(line) });
    expect({ changed, problems }).toEqual({ changed: [], problems: [] });
  }, 120_000);
});
