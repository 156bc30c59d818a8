// The house rules: typescript-eslint's recommended set, plus what GUIDE.md asks of every file
// (errors from one catalogue per package, pino's log key `err`, one name for loggers, options
// objects for constructors with more than two dependencies). Formatting is prettier's
// (`npm run format`); `npm test` runs both (test/unit/house-style.test.ts).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

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
    // JavaScript files (scripts, fixtures, the launcher) run in Node as they are
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
