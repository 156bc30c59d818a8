// Bundles the web view's page (page/src, Preact + TSX) into dist/page: one hashed script, one
// hashed stylesheet and index.html, each with .gz and .br forms the server sends as they are.
// Run by the workspace's `npm run build` after `tsc -b` (which type-checks page/ too).
import { build } from 'esbuild';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = join(root, 'dist', 'page');
const assets = join(out, 'assets');

await rm(out, { recursive: true, force: true });
await mkdir(assets, { recursive: true });

const result = await build({
  entryPoints: [join(root, 'page', 'src', 'main.tsx')],
  outdir: assets,
  entryNames: 'app-[hash]',
  bundle: true,
  minify: true,
  format: 'esm',
  target: ['chrome110', 'firefox115', 'safari16'],
  tsconfig: join(root, 'page', 'tsconfig.json'),
  metafile: true,
  legalComments: 'none',
  logLevel: 'warning',
});

const outputs = Object.keys(result.metafile.outputs).map((file) => basename(file));
const script = outputs.find((file) => file.endsWith('.js'));
const style = outputs.find((file) => file.endsWith('.css'));
if (!script || !style) throw new Error(`bundle-page: expected one .js and one .css, got ${outputs.join(', ')}`);

const template = await readFile(join(root, 'page', 'index.html'), 'utf8');
await writeFile(join(out, 'index.html'), template.replace('%JS%', script).replace('%CSS%', style));

let total = 0;
for (const file of [join(out, 'index.html'), join(assets, script), join(assets, style)]) {
  const bytes = await readFile(file);
  const br = brotliCompressSync(bytes, {
    params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length },
  });
  await writeFile(`${file}.br`, br);
  await writeFile(`${file}.gz`, gzipSync(bytes, { level: 9 }));
  total += br.length;
}
if (process.env.BUNDLE_PAGE_QUIET !== '1') console.log(`web-ui page: ${script}, ${style}; ${total} bytes with brotli`);
