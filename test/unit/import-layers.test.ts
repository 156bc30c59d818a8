import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { CORE_LAYERS } from '../../eslint.config.js';

// The lint rules that hold core's import graph (eslint.config.js): no cycle, type-only imports
// included, and no folder importing one above it in CORE_LAYERS. `house-style.test.ts` holds
// today's tree to them; this file shows that they fail on a new cycle or an import up the layers.
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const eslint = new ESLint({ cwd: ROOT });

async function findings(filePath: string, text: string): Promise<string[]> {
  const [result] = await eslint.lintText(text, { filePath: `${ROOT}${filePath}` });
  return (result?.messages ?? []).map((message) => `${message.ruleId}: ${message.message}`);
}

describe('core import graph', () => {
  it('gives every folder and top-level file of core/src a place in CORE_LAYERS', () => {
    const entries = readdirSync(`${ROOT}core/src`).sort();
    expect(entries.filter((entry) => !CORE_LAYERS.includes(entry))).toEqual([]);
  });

  it('fails on a cycle held by a type-only import (the one issue 35 found in the scheduler)', async () => {
    const text = "import type { FilterPass } from './filter-pass.js';\n\nexport type Pass = FilterPass;\n";
    expect(await findings('core/src/scheduler/refusal-text.ts', text)).toEqual([
      'swarm/no-import-cycle: Import cycle: refusal-text.ts → filter-pass.ts → refusal-text.ts. Move what both sides need into a module of its own.',
    ]);
  }, 60_000);

  it('fails on an import up the layers (the web host reaching into the CLI)', async () => {
    const text = "import { createProgram } from '../cli/main.js';\n\nexport const program = createProgram;\n";
    const found = await findings('core/src/web/probe.ts', text);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^import-x\/no-restricted-paths: .*core\/src\/web imports only what CORE_LAYERS/);
  }, 60_000);

  it('lets a folder import the folders below it', async () => {
    const text = "import { sendJson } from '../http/responses.js';\n\nexport const send = sendJson;\n";
    expect(await findings('core/src/api/probe.ts', text)).toEqual([]);
  }, 60_000);
});
