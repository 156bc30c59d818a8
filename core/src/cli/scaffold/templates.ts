import { Tokens, type ExtensionKind } from '@swarm/plugin-sdk';
import { kindLabel } from '../../plugins/extension-kinds.js';
import { admissionFiles } from './admission-template.js';
import { authzFiles } from './authz-template.js';
import { discoveryFiles } from './discovery-template.js';
import { driverFiles } from './driver-template.js';
import { filterFiles } from './filter-template.js';
import { strategyFiles } from './strategy-template.js';
import { className, type PluginFiles } from './template-parts.js';

export type { PluginFiles } from './template-parts.js';

export const SCAFFOLD_KINDS = ['filter', 'strategy', 'driver', 'discovery', 'authz', 'admission'] as const;
export type ScaffoldKind = (typeof SCAFFOLD_KINDS)[number];

export interface ScaffoldInputs {
  /** The provided name (`gpu`): the filter, strategy, driver or URI scheme users name in their config. */
  name: string;
  kind: ScaffoldKind;
  /**
   * The SDK range the package depends on, as a peer and to develop with: `^<version of the SDK this
   * swarm runs with>`, a range that means the same on any machine (never a path into one install).
   */
  sdkRange: string;
  /** The folder of the SDK this swarm runs with, for a registry that has no `@swarm/plugin-sdk` yet. */
  localSdk?: string | undefined;
  /** The plugin API this host provides (the plugin declares `^major.<lowest minor its kind needs>.0`). */
  apiVersion: string;
}

function packageJson(inputs: ScaffoldInputs): string {
  return `${JSON.stringify(
    {
      name: `swarm-plugin-${inputs.name}`,
      version: '0.1.0',
      description: `swarm ${inputs.kind} "${inputs.name}"`,
      type: 'module',
      main: './dist/index.js',
      types: './dist/index.d.ts',
      exports: { '.': { types: './dist/index.d.ts', default: './dist/index.js' }, './package.json': './package.json' },
      files: ['dist'],
      keywords: ['swarm-plugin'],
      swarm: { plugin: true, kinds: [inputs.kind] },
      scripts: { build: 'tsc -p tsconfig.json', test: 'npm run build && vitest run', prepack: 'npm run build' },
      peerDependencies: { '@swarm/plugin-sdk': inputs.sdkRange },
      devDependencies: { '@swarm/plugin-sdk': inputs.sdkRange, '@types/node': '^20.19.0', typescript: '~6.0.3', vitest: '^4.1.12' },
    },
    null,
    2,
  )}\n`;
}

const TSCONFIG = `${JSON.stringify(
  {
    compilerOptions: {
      target: 'ES2022',
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      lib: ['ES2023'],
      types: ['node'],
      strict: true,
      noUncheckedIndexedAccess: true,
      declaration: true,
      sourceMap: true,
      skipLibCheck: true,
      rootDir: 'src',
      outDir: 'dist',
    },
    include: ['src'],
  },
  null,
  2,
)}\n`;

/** What differs from kind to kind: the source files, the class they export, its registration, how it is used. */
interface KindTemplate {
  /** `src/<name>-<sourceFile>.ts` exports the class `<Name><suffix>`. */
  readonly sourceFile: string;
  readonly suffix: string;
  /** The extension point it registers at (`swarm plugins` lists it by this kind's label). */
  readonly token: ExtensionKind;
  /** The lowest plugin API minor whose features the scaffold uses: the range it declares starts there. */
  readonly apiMinor: number;
  readonly imports: string;
  register(name: string, klass: string): string;
  use(name: string): { config: string; run: string };
  files(name: string): PluginFiles;
}

const ENGINES = '10.0.0.1:2375,10.0.0.2:2375';

const KINDS: Readonly<Record<ScaffoldKind, KindTemplate>> = {
  filter: {
    apiMinor: 0,
    token: Tokens.Filter,
    sourceFile: 'filter',
    suffix: 'Filter',
    imports: 'definePlugin',
    register: (name, klass) => `ctx.filter('${name}', { useFactory: () => new ${klass}() });`,
    use: (name) => ({
      config: `scheduler: { filters: ['health', 'constraint', '${name}'], strategy: 'spread' }`,
      run: `npx swarm manage nodes://${ENGINES}`,
    }),
    files: filterFiles,
  },
  strategy: {
    apiMinor: 0,
    token: Tokens.Strategy,
    sourceFile: 'strategy',
    suffix: 'Strategy',
    imports: 'definePlugin',
    register: (name, klass) => `ctx.strategy('${name}', { useFactory: () => new ${klass}() });`,
    use: (name) => ({ config: `scheduler: { strategy: '${name}' }`, run: `npx swarm manage nodes://${ENGINES}` }),
    files: strategyFiles,
  },
  driver: {
    apiMinor: 0,
    token: Tokens.ClusterDriver,
    sourceFile: 'cluster',
    suffix: 'Cluster',
    imports: 'definePlugin, Tokens',
    register: (name, klass) => `// the driver finds its nodes itself: \`swarm manage -c ${name}\` needs no discovery argument
    ctx.driver(
      '${name}',
      { useFactory: (r) => new ${klass}({ config: r.resolve(Tokens.DeploymentConfig), scheduler: r.resolve(Tokens.Scheduler) }) },
      { discovery: 'optional' },
    );`,
    use: (name) => ({ config: `cluster: { driver: '${name}', options: { '${name}.nodes': '3' } }`, run: 'npx swarm manage' }),
    files: driverFiles,
  },
  discovery: {
    apiMinor: 0,
    token: Tokens.DiscoveryBackend,
    sourceFile: 'discovery',
    suffix: 'Discovery',
    imports: 'definePlugin',
    register: (name, klass) => `ctx.discovery('${name}', { useFactory: () => new ${klass}() });`,
    use: (name) => ({ config: '', run: `npx swarm manage ${name}://${ENGINES}` }),
    files: discoveryFiles,
  },
  // access plugins (plugin API 2.1) register a factory, which the host calls with the entry's options
  authz: {
    // it answers NO_OPINION (plugin API 2.2) for what it does not judge
    apiMinor: 2,
    token: Tokens.Authorizer,
    sourceFile: 'authorizer',
    suffix: 'Authorizer',
    imports: 'definePlugin',
    register: (name, klass) => `ctx.authz('${name}', { useValue: ${klass}.factory });`,
    // it restricts and grants nothing it does not judge: listed after an authorizer that grants (rules)
    use: (name) => ({
      config: `access: { authz: [['rules', { bindings: [{ group: 'staff', role: 'edit', scope: 'all' }] }], ['${name}', { readOnly: ['auditors'] }]] }`,
      run: `npx swarm manage nodes://${ENGINES}`,
    }),
    files: authzFiles,
  },
  admission: {
    apiMinor: 1,
    token: Tokens.AdmissionController,
    sourceFile: 'admission',
    suffix: 'Admission',
    imports: 'definePlugin',
    register: (name, klass) => `ctx.admission('${name}', { useValue: ${klass}.factory });`,
    use: (name) => ({
      config: `access: { admission: [['${name}', { maxMemory: 4294967296 }]] }`,
      run: `npx swarm manage nodes://${ENGINES}`,
    }),
    files: admissionFiles,
  },
};

function index(inputs: ScaffoldInputs): string {
  const template = KINDS[inputs.kind];
  const klass = className(inputs.name, template.suffix);
  const [major] = inputs.apiVersion.split('.');
  return `import { ${template.imports} } from '@swarm/plugin-sdk';
import { ${klass} } from './${inputs.name}-${template.sourceFile}.js';

export { ${klass} };

export const plugin = definePlugin({
  name: 'swarm-plugin-${inputs.name}',
  version: '0.1.0',
  // the plugin API this plugin was written against: hosts with a compatible API load it
  apiVersion: '^${major}.${template.apiMinor}.0',
  description: 'swarm ${inputs.kind} "${inputs.name}"',
  register(ctx) {
    ${template.register(inputs.name, klass)}
  },
});

export default plugin;
`;
}

/**
 * The first install: `@swarm/plugin-sdk` comes from the registry; where the registry does not have
 * it (a swarm installed from tarballs), `--no-save` installs the copy this swarm runs with without
 * writing its path into package.json, which stays portable.
 */
export function installStep(inputs: Pick<ScaffoldInputs, 'localSdk'>): string {
  return inputs.localSdk === undefined ? 'npm install' : `npm install --no-save ${inputs.localSdk}`;
}

function readme(inputs: ScaffoldInputs): string {
  const { name, kind } = inputs;
  const use = KINDS[kind].use(name);
  return `# swarm-plugin-${name}

A swarm ${kind}, \`${name}\`.

\`\`\`sh
npm install && npm test          # builds, runs the SDK's conformance checks and the cases
npm pack                         # swarm-plugin-${name}-0.1.0.tgz
\`\`\`

\`@swarm/plugin-sdk\` (${inputs.sdkRange}) is a peer dependency (the host's copy is the one at run time)
and a dev dependency (to build and test). If your npm registry does not have it, install the copy
your swarm runs with, without saving its path: \`${installStep(inputs)}\`.

To publish: \`npm publish\` (the \`files\` are the built \`dist/\`; \`prepack\` builds it). Keep \`apiVersion\`
in \`src/index.ts\` at the lowest plugin API minor whose features you use.

Install the tarball next to your \`swarm.config.js\` and list it:

\`\`\`js
export default { plugins: ['${name}']${use.config ? `, ${use.config}` : ''} };
\`\`\`

\`npx swarm plugins\` shows it with \`${kindLabel(KINDS[kind].token)} ${name}\`; then \`${use.run}\`.
`;
}

/** The files of a new plugin package. */
export function pluginFiles(inputs: ScaffoldInputs): PluginFiles {
  return {
    'package.json': packageJson(inputs),
    'tsconfig.json': TSCONFIG,
    'README.md': readme(inputs),
    '.gitignore': 'node_modules/\ndist/\n*.tgz\n',
    'src/index.ts': index(inputs),
    ...KINDS[inputs.kind].files(inputs.name),
  };
}
