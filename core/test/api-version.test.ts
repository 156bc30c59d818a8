import type { Node, NodeSnapshot } from '@swarm/plugin-sdk';
import { describe, expect, it } from 'vitest';
import { compareApiVersions, servedApiVersions } from '../dist/api/api-version.js';

/** Just what servedApiVersions reads of a node: its snapshot's API range. */
function engine(max?: string, min?: string): Node {
  const snapshot = (max === undefined ? {} : { apiVersions: { max, min: min ?? max } }) as NodeSnapshot;
  return { snapshot: () => snapshot } as Node;
}

describe('the Engine API version the front serves', () => {
  it('compares versions part by part', () => {
    expect(compareApiVersions('1.9', '1.41')).toBeLessThan(0);
    expect(compareApiVersions('1.45', '1.41')).toBeGreaterThan(0);
    expect(compareApiVersions('1.41', '1.41')).toBe(0);
  });

  it('is the highest all engines support, from the oldest all accept', () => {
    expect(servedApiVersions([engine('1.41', '1.12'), engine('1.45', '1.24')])).toEqual({ max: '1.41', min: '1.24' });
    expect(servedApiVersions([engine('1.45', '1.24'), engine('1.45', '1.24')])).toEqual({ max: '1.45', min: '1.24' });
    expect(servedApiVersions([engine('1.40', '1.12'), engine('1.41', '1.12')])).toEqual({ max: '1.40', min: '1.12' });
  });

  it('stops at the newest the front implements', () => {
    expect(servedApiVersions([engine('1.51', '1.24')])).toEqual({ max: '1.45', min: '1.24' });
  });

  it('serves the baseline when no node says (other drivers, engines not yet connected)', () => {
    expect(servedApiVersions([])).toEqual({ max: '1.41', min: '1.12' });
    expect(servedApiVersions([engine(), engine('1.45', '1.24')])).toEqual({ max: '1.45', min: '1.24' });
    expect(servedApiVersions([engine('not a version')])).toEqual({ max: '1.41', min: '1.12' });
  });
});
