import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

// The house rules (eslint.config.js: typescript-eslint, one error catalogue per package, pino's
// `err`, `logger`, options objects for constructors) and the formatter, over the whole workspace.
const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const bin = (name: string) => `${ROOT}node_modules/.bin/${name}`;

async function outcome(command: string, args: string[]): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run(bin(command), args, { cwd: ROOT, maxBuffer: 1 << 24 });
    return { code: 0, output: `${stdout}${stderr}` };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? 1, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}

describe('house style', () => {
  it('eslint finds nothing (npx eslint . shows where)', async () => {
    const { code, output } = await outcome('eslint', ['.']);
    expect({ code, output }).toEqual({ code: 0, output: '' });
  }, 300_000);

  it('every file is formatted (npm run format writes it)', async () => {
    const { code, output } = await outcome('prettier', ['--check', '**/*.{ts,tsx,mts,js,mjs,cjs,json,css}']);
    expect(code, output).toBe(0);
  }, 300_000);
});
