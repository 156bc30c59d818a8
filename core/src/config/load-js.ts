import { realpath } from 'node:fs/promises';
import { register } from 'node:module';
import { pathToFileURL } from 'node:url';

/** The query that marks a config file to be read as an ES module whatever its package's `type`. */
const AS_MODULE = 'swarm-config-as-module';

/**
 * A module loader hook (run by Node in its loader thread, hence a self-contained data: URL: the
 * CLI is one bundled file) that reads a marked URL as an ES module. Only the config file itself is
 * marked; what it imports keeps Node's own rules.
 */
const HOOK = `export async function load(url, context, nextLoad) {
  if (!url.includes('${AS_MODULE}')) return nextLoad(url, context);
  const loaded = await nextLoad(url, { ...context, format: 'module' });
  return { ...loaded, format: 'module', shortCircuit: true };
}`;

/**
 * Registered at most once per process: Node keeps loader hooks for the process's lifetime, so a
 * second registration would only add a second copy of the same hook.
 */
let hookRegistered = false;
/** Each fallback import gets its own URL, so a config edited between two loads is read again. */
let generation = 0;

/**
 * Whether the source has top-level `import` or `export` statements: ES module syntax. A `.js` written
 * so (as the README's recipe writes it) in a package that npm 11's `npm init -y` marked
 * `"type": "commonjs"` is a syntax error to Node, though nothing in the file is wrong.
 */
function hasModuleSyntax(source: string): boolean {
  return /^[ \t]*(export[ \t]+(default|const|let|var|function|async|class|\{)|import[ \t]*[\w{*'"])/m.test(source);
}

/**
 * Load a JavaScript config file as Node reads it (`import()`: ESM or CommonJS by the package's
 * `type` and the extension), except that a `.js` file written with ES module syntax is read as an
 * ES module whatever its package says, the way Node's module syntax detection reads a file whose
 * package does not say. Decided from the source up front, not by catching Node's syntax error:
 * that attempt also prints a warning a user would take for the problem.
 */
export async function loadJsConfig(filepath: string, source: string): Promise<unknown> {
  const url = pathToFileURL(await realpath(filepath)).href;
  if (!filepath.endsWith('.js') || !hasModuleSyntax(source)) return ((await import(url)) as { default?: unknown }).default;
  if (!hookRegistered) {
    register(`data:text/javascript,${encodeURIComponent(HOOK)}`);
    hookRegistered = true;
  }
  generation += 1;
  return ((await import(`${url}?${AS_MODULE}=${generation}`)) as { default?: unknown }).default;
}
