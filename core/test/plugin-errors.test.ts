import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { pluginStack } from '../dist/plugins/plugin-stack.js';

describe("a plugin's fault at load or in register()", () => {
  it("carries the stack from the first frame in the plugin's own file, the host's frames above it left out", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'swarm-plugin-stack-'));
    const file = join(dir, 'index.js');
    writeFileSync(file, 'export function register() {\n  const options = undefined;\n  return options.name;\n}\n');
    const plugin = (await import(pathToFileURL(file).href)) as { register: () => unknown };
    // the host's frame: the function calling the plugin
    const hostCalls = () => plugin.register();
    let error: unknown;
    try {
      hostCalls();
    } catch (caught) {
      error = caught;
    }
    const stack = pluginStack(error, dir)!.split('\n');
    expect(stack[0]).toContain("TypeError: Cannot read properties of undefined (reading 'name')");
    expect(stack[1]).toContain(`${file}:3:`);
    expect(pluginStack(error, join(dir, 'elsewhere'))).toBe((error as Error).stack);
  });
});
