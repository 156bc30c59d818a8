// Bundles the compiled CLI (core/dist/cli/bin.js) and core's npm dependencies into
// core/dist/bundle/swarm.js, which core/bin/swarm.js runs while it is newer than core's tsc output.
// Why: `swarm manage` spent most of its cold start resolving and reading ~500 small modules
// (issue #2). Run by `npm run build`, after `tsc -b`.
//
// Kept external, so one copy is shared with plugins: @swarm/* (the SDK's SwarmError, plugin
// brand and DI tokens must be the very objects plugins import), tsyringe and reflect-metadata
// (DI registrations made through the SDK's decorators live in tsyringe's module state).
import { build } from 'esbuild';
import { readFile } from 'node:fs/promises';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const coreDir = fileURLToPath(new URL('..', import.meta.url));
// --outfile: tests bundle a fresh copy elsewhere under core/ (externals resolve from there).
const { values } = parseArgs({ options: { outfile: { type: 'string' } } });
const outfile = resolve(values.outfile ?? `${coreDir}dist/bundle/swarm.js`);
const outDir = dirname(outfile);

/** Code that finds files next to itself (version.ts, builtins.ts) still sees its own dist/ location. */
const keepImportMetaUrl = {
  name: 'keep-import-meta-url',
  setup(builder) {
    builder.onLoad({ filter: /[\\/]core[\\/]dist[\\/].*\.js$/ }, async ({ path }) => {
      const text = await readFile(path, 'utf8');
      if (/import\.meta(?!\.url)/.test(text)) throw new Error(`${path}: only import.meta.url is kept right in the bundle`);
      if (!text.includes('import.meta.url')) return undefined;
      const own = `new URL(${JSON.stringify(relative(outDir, path).split('\\').join('/'))}, import.meta.url).href`;
      return { contents: text.replaceAll('import.meta.url', own), loader: 'js', resolveDir: dirname(path) };
    });
  },
};

await build({
  entryPoints: [`${coreDir}dist/cli/bin.js`],
  outfile,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // Fewer bytes to parse at each start; `node --enable-source-maps` maps stack traces back.
  minifyWhitespace: true,
  sourcemap: 'linked',
  logLevel: 'warning',
  plugins: [keepImportMetaUrl],
  // typescript: cosmiconfig's optional loader for swarm.config.ts, loaded only for such a file.
  // pino-pretty: loaded only when stderr is a terminal.
  external: ['@swarm/*', 'tsyringe', 'reflect-metadata', 'typescript', 'pino-pretty'],
  // Bundled CommonJS dependencies call require() (Node's built-in modules) and some read __dirname.
  banner: {
    js: [
      "import { createRequire as __swarmCreateRequire } from 'node:module';",
      "import { fileURLToPath as __swarmFileURLToPath } from 'node:url';",
      'const require = __swarmCreateRequire(import.meta.url);',
      'const __filename = __swarmFileURLToPath(import.meta.url);',
      "const __dirname = __swarmFileURLToPath(new URL('.', import.meta.url));",
    ].join('\n'),
  },
});
