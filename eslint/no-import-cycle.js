// An ESLint rule that fails on an import which closes a cycle, type-only imports included.
// eslint-plugin-import-x's `no-cycle` skips `import type` by design (they cost nothing at run
// time), but a cycle of types is still two modules a reader cannot understand one before the
// other: both cycles issue 35 found in core were held together by type-only imports.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import ts from 'typescript';

/** Relative imports of a file's text (every kind: values, types, re-exports, `import()`), with positions. */
function relativeImports(text) {
  return ts
    .preProcessFile(text, true, true)
    .importedFiles.filter((file) => file.fileName.startsWith('./') || file.fileName.startsWith('../'));
}

/** `./x.js` from `from` as the TypeScript file it names, or undefined (not a source file here). */
function resolveImport(from, specifier) {
  const target = resolve(dirname(from), specifier);
  const candidates = [target.replace(/\.js$/, '.ts'), target, `${target}.ts`, `${target}/index.ts`];
  return candidates.find((candidate) => candidate.endsWith('.ts') && existsSync(candidate));
}

/** A file's resolved imports, read again only when the file changed (editors keep ESLint running). */
const importsCache = new Map();
function importsOf(file) {
  const { mtimeMs } = statSync(file);
  const cached = importsCache.get(file);
  if (cached?.mtimeMs === mtimeMs) return cached.targets;
  const targets = relativeImports(readFileSync(file, 'utf8'))
    .map((imported) => resolveImport(file, imported.fileName))
    .filter((target) => target !== undefined);
  importsCache.set(file, { mtimeMs, targets });
  return targets;
}

/** A path of imports from `start` back to `goal` (both included), or undefined. */
function pathBack(start, goal) {
  const seen = new Set([start]);
  const stack = [[start]];
  while (stack.length > 0) {
    const path = stack.pop();
    for (const next of importsOf(path[path.length - 1])) {
      if (next === goal) return [...path, next];
      if (seen.has(next)) continue;
      seen.add(next);
      stack.push([...path, next]);
    }
  }
  return undefined;
}

export const noImportCycle = {
  meta: {
    type: 'problem',
    docs: { description: 'Forbid an import that leads back to the importing file, type-only imports included' },
    schema: [],
    messages: { cycle: 'Import cycle: {{path}}. Move what both sides need into a module of its own.' },
  },
  create(context) {
    const file = context.physicalFilename;
    return {
      Program() {
        // the text being linted, not the file on disk: an editor's unsaved change counts
        for (const imported of relativeImports(context.sourceCode.text)) {
          const target = resolveImport(file, imported.fileName);
          if (target === undefined) continue;
          const back = target === file ? [file] : pathBack(target, file);
          if (!back) continue;
          const path = [file, ...back].map((step) => relative(dirname(file), step)).join(' → ');
          const start = context.sourceCode.getLocFromIndex(imported.pos);
          const end = context.sourceCode.getLocFromIndex(imported.end);
          context.report({ loc: { start, end }, messageId: 'cycle', data: { path } });
        }
      },
    };
  },
};
