import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SDK_DIR = fileURLToPath(new URL('../../../plugin-sdk', import.meta.url));

export interface PluginFixture {
  version?: string;
  apiVersion?: string;
  /** Body of `register(ctx) { ... }`. */
  register?: string;
  /** Replaces the whole entry module. */
  source?: string;
  kinds?: string[];
}

/** A real folder with node_modules, where test plugins are real (plain JS, ESM) packages. */
export interface TempProject {
  readonly dir: string;
  write(relative: string, content: string): string;
  addPlugin(packageName: string, fixture?: PluginFixture, under?: string): string;
  remove(): void;
}

export function pluginSource(name: string, fixture: PluginFixture): string {
  return `import { definePlugin } from '@swarm/plugin-sdk';
export default definePlugin({
  name: ${JSON.stringify(name)},
  version: ${JSON.stringify(fixture.version ?? '1.0.0')},
  apiVersion: ${JSON.stringify(fixture.apiVersion ?? '^2.0.0')},
  register(ctx) {
    ${fixture.register ?? ''}
  },
});
`;
}

export function createTempProject(): TempProject {
  const dir = mkdtempSync(join(tmpdir(), 'swarm-core-test-'));
  mkdirSync(join(dir, 'node_modules', '@swarm'), { recursive: true });
  symlinkSync(SDK_DIR, join(dir, 'node_modules', '@swarm', 'plugin-sdk'), 'dir');
  const write = (relative: string, content: string): string => {
    const file = join(dir, relative);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, content);
    return file;
  };
  return {
    dir,
    write,
    addPlugin(packageName, fixture = {}, under = 'node_modules') {
      const base = `${under}/${packageName}`;
      write(
        `${base}/package.json`,
        JSON.stringify({
          name: packageName,
          version: fixture.version ?? '1.0.0',
          type: 'module',
          main: 'index.js',
          swarm: { plugin: true, kinds: fixture.kinds ?? [] },
        }),
      );
      write(`${base}/index.js`, fixture.source ?? pluginSource(packageName, fixture));
      return join(dir, base);
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** A `register` body providing filters that pass every node. */
export function filtersBody(...names: string[]): string {
  return names
    .map(
      (name) => `ctx.filter(${JSON.stringify(name)}, { useFactory: () => ({ name: ${JSON.stringify(name)}, prepare: () => undefined }) });`,
    )
    .join('\n    ');
}

/** A `register` body providing a strategy that keeps the node order. */
export function strategyBody(name: string): string {
  return `ctx.strategy(${JSON.stringify(name)}, { useFactory: () => ({ name: ${JSON.stringify(name)}, rank: (request, nodes) => nodes.map((node, i) => ({ node, score: i })) }) });`;
}

/**
 * A `register` body providing an in-memory cluster driver: it records the deployment config it
 * was built with and the options it saw, so tests can look inside a deployment.
 */
export function memoryDriverBody(name = 'memory'): string {
  return `ctx.driver(${JSON.stringify(name)}, { useFactory: (r) => {
      const config = r.resolve('swarm:DeploymentConfig');
      const listeners = new Set();
      let started = 0;
      return {
        driverName: ${JSON.stringify(name)},
        config,
        state: { containers: [] },
        get started() { return started; },
        async start() { started++; for (const l of listeners) l({ Type: 'swarm', Action: 'engine_connect', status: 'engine_connect' }); },
        async stop() { started--; },
        nodes: () => [],
        containers: () => [],
        container: () => undefined,
        subscribe(listener) { listeners.add(listener); return () => listeners.delete(listener); },
      };
    } });`;
}
