// The house rules: typescript-eslint's recommended set, plus what CONTRIBUTING.md asks of every
// file (errors from one catalogue per package, pino's log key `err`, one name for loggers, options
// objects for constructors with more than two dependencies) and of core's imports (no cycles, each
// folder importing only the folders below it). Formatting is prettier's (`npm run format`);
// `npm run lint` runs eslint, and `npm test` runs both (test/unit/house-style.test.ts).
import { fileURLToPath } from 'node:url';
import js from '@eslint/js';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';
import { noImportCycle } from './eslint/no-import-cycle.js';

// Node's globals, for the JavaScript files (TypeScript checks its own files).
const NODE_GLOBALS = Object.fromEntries(
  [
    'process',
    'console',
    'Buffer',
    'URL',
    'URLSearchParams',
    'setTimeout',
    'clearTimeout',
    'setInterval',
    'clearInterval',
    'setImmediate',
    'clearImmediate',
    'queueMicrotask',
    'fetch',
    'AbortController',
    'performance',
    'structuredClone',
    'TextEncoder',
    'TextDecoder',
  ].map((name) => [name, 'readonly']),
);

const LOG_METHODS = '/^(trace|debug|info|warn|error|fatal)$/';

const houseRules = {
  '@typescript-eslint/no-explicit-any': 'error',
  '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
  '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
  'no-duplicate-imports': 'error',
  'no-restricted-syntax': [
    'error',
    {
      selector: `CallExpression[callee.property.name=${LOG_METHODS}] > ObjectExpression.arguments:first-child > Property[key.name='error']`,
      message: "Log an error under pino's key `err`.",
    },
    {
      selector: "PropertyDefinition[key.name='log'], TSParameterProperty > Identifier[name='log'], TSPropertySignature[key.name='log']",
      message: 'Name a Logger `logger`.',
    },
    {
      // error classes take their data as Error does (`new SwarmError(code, message, options)`)
      selector:
        "ClassDeclaration:not([superClass.name=/Error$/]) MethodDefinition[kind='constructor'] > FunctionExpression[params.length>2]",
      message: 'A constructor with more than two dependencies takes one options object.',
    },
  ],
};

/** In sources, every error a user can see comes from the package's catalogue (its `errors.ts`). */
const catalogueRule = {
  'no-restricted-syntax': [
    ...houseRules['no-restricted-syntax'],
    {
      selector: "NewExpression[callee.name='SwarmError'], NewExpression[callee.name='Error']",
      message: "Raise errors from the package's catalogue (src/errors.ts, defineError).",
    },
  ],
};

// Paths below are the repository's, wherever eslint is started from (an editor may start it in a subfolder).
const ROOT = fileURLToPath(new URL('.', import.meta.url));

/**
 * core/src from the bottom up (CONTRIBUTING.md, "Layout"): a folder (or top-level file) imports
 * only what comes before it here, so the API front can be read without the web host, the
 * scheduler without the deployment, and so on. A new folder of core/src gets its place here
 * (test/unit/import-layers.test.ts fails until it has one).
 */
export const CORE_LAYERS = [
  'util',
  'version.ts',
  'errors.ts',
  'logging',
  'config',
  'plugins',
  'di',
  'discovery',
  'scheduler',
  'explain',
  'deployment',
  'http',
  'forwarding',
  'replication',
  'access',
  'api',
  'web',
  'embedding',
  'hollow',
  'cli',
  'index.ts',
];

/** import-x's restricted zones for the layers: each one may not import any layer above it. */
const layerZones = CORE_LAYERS.slice(0, -1).map((layer, index) => ({
  target: `./core/src/${layer}`,
  from: CORE_LAYERS.slice(index + 1).map((above) => `./core/src/${above}`),
  message: `core/src/${layer} imports only what CORE_LAYERS (eslint.config.js) lists before it: move what both need lower, or pass it in`,
}));

export default tseslint.config(
  {
    ignores: ['**/dist/**', '**/node_modules/**', 'test/bench/results/**', 'test/.artifacts/**', '**/*.d.ts', 'coverage/**'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2022, sourceType: 'module', globals: NODE_GLOBALS },
    rules: houseRules,
  },
  {
    files: ['plugin-sdk/src/**/*.ts', 'core/src/**/*.ts', 'plugins/*/src/**/*.ts'],
    ignores: ['**/errors.ts'],
    rules: catalogueRule,
  },
  {
    // core's import graph: no cycles (type-only imports count) and no import up the layers
    files: ['core/src/**/*.ts'],
    plugins: { 'import-x': importX, swarm: { rules: { 'no-import-cycle': noImportCycle } } },
    settings: { 'import-x/resolver-next': [createTypeScriptImportResolver({ project: `${ROOT}core/tsconfig.json` })] },
    rules: {
      'swarm/no-import-cycle': 'error',
      'import-x/no-restricted-paths': ['error', { zones: layerZones, basePath: ROOT }],
    },
  },
  {
    // JavaScript files (scripts, fixtures, the launcher) run in Node as they are
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
