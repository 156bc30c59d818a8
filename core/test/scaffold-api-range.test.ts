import { PLUGIN_API_VERSION } from '@swarm/plugin-sdk';
import { describe, expect, it } from 'vitest';
import { pluginFiles, SCAFFOLD_KINDS } from '../dist/cli/scaffold/templates.js';

// Each kind's scaffold declares the lowest plugin API minor whose features it uses, so the plugin
// loads on every host that has them, not only on hosts as new as the one that scaffolded it.
const LOWEST: Readonly<Record<(typeof SCAFFOLD_KINDS)[number], string>> = {
  filter: '^2.0.0',
  strategy: '^2.0.0',
  driver: '^2.0.0',
  discovery: '^2.0.0',
  authz: '^2.2.0',
  admission: '^2.1.0',
};

describe('swarm plugin init', () => {
  it.each(SCAFFOLD_KINDS.map((kind) => [kind]))("declares the lowest API minor a %s needs, whatever this host's minor", (kind) => {
    const files = pluginFiles({ name: 'gpu', kind, sdkRange: '^2.2.0', apiVersion: PLUGIN_API_VERSION });
    expect(files['src/index.ts']).toContain(`apiVersion: '${LOWEST[kind]}',`);
    const manifest = JSON.parse(files['package.json']!) as {
      peerDependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    expect(manifest.peerDependencies['@swarm/plugin-sdk']).toBe('^2.2.0');
    expect(manifest.devDependencies['@swarm/plugin-sdk']).toBe('^2.2.0');
  });

  it('never writes a path into an install in the package', () => {
    const files = pluginFiles({ name: 'gpu', kind: 'filter', sdkRange: '^2.2.0', apiVersion: PLUGIN_API_VERSION });
    expect(files['package.json']).not.toMatch(/file:|\/_npx\//);
  });
});
