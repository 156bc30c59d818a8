import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Up to three test files run at once, and an engine index is an address (127.0.0.<i+1>), a bridge
// and a data folder: two files that start the same index break each other, only when they happen
// to run together. This reads every test file's engine ranges and fails on any two that overlap.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FOLDERS = ['test/e2e', 'test/reliability', 'test/unit', 'core/test'];

interface Claim {
  readonly file: string;
  readonly first: number;
  readonly count: number;
}

function testFiles(): string[] {
  return FOLDERS.flatMap((folder) =>
    readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' })
      .filter((name) => name.endsWith('.test.ts'))
      .map((name) => join(ROOT, folder, name)),
  );
}

/** A number as the file writes it: a literal, or a `const NAME = 123` of the same file. */
function valueOf(expression: string, source: string): number | undefined {
  const text = expression.trim();
  if (/^\d+$/.test(text)) return Number(text);
  if (!/^[A-Z_][A-Z0-9_]*$/.test(text)) return undefined;
  const declared = new RegExp(`const ${text} = (\\d+)\\b`).exec(source);
  return declared ? Number(declared[1]) : undefined;
}

/** The engine ranges a file starts, through the harness calls the suites use. */
function claimsOf(file: string): Claim[] {
  const source = readFileSync(file, 'utf8');
  const claims: Claim[] = [];
  const add = (first: string | undefined, count: string | undefined) => {
    const from = first === undefined ? undefined : valueOf(first, source);
    const many = count === undefined ? undefined : valueOf(count, source);
    if (from !== undefined && many !== undefined) claims.push({ file: relative(ROOT, file), first: from, count: many });
  };
  for (const match of source.matchAll(/startTestbed\(\{\s*first:\s*([\w]+),\s*count:\s*([\w]+)/g)) add(match[1], match[2]);
  for (const match of source.matchAll(/startApiCluster\(\s*([\w]+),\s*([\w]+)/g)) add(match[1], match[2]);
  for (const match of source.matchAll(/firstEngine:\s*([\w]+),\s*(?:\n\s*)?engines:\s*([\w]+)/g)) add(match[1], match[2]);
  for (const match of source.matchAll(/replicationSuite\(\{[^}]*firstEngine:\s*(\d+)/g)) add(match[1], '2');
  for (const match of source.matchAll(/\{\s*index:\s*(\d+)\b/g)) add(match[1], '1');
  return claims;
}

describe('engine indexes', () => {
  const claims = testFiles().flatMap(claimsOf);

  it('are read from the suites (the check is not empty)', () => {
    expect(claims.length).toBeGreaterThan(60);
    expect(claims.some((claim) => claim.file === 'test/reliability/engine-faults.test.ts' && claim.first === 183)).toBe(true);
  });

  it('belong to one test file each', () => {
    const owner = new Map<number, string>();
    const clashes: string[] = [];
    for (const claim of claims) {
      for (let index = claim.first; index < claim.first + claim.count; index++) {
        const other = owner.get(index);
        if (other !== undefined && other !== claim.file) clashes.push(`engine ${index}: ${other} and ${claim.file}`);
        owner.set(index, claim.file);
      }
    }
    expect(clashes).toEqual([]);
  });

  it('stay within the loopback addresses the testbed can give (1-254)', () => {
    const outside = claims.filter((claim) => claim.first < 1 || claim.first + claim.count - 1 > 254);
    expect(outside).toEqual([]);
  });
});
