/** What a scaffolded plugin is made of: file path → contents. */
export type PluginFiles = Readonly<Record<string, string>>;

export type ScaffoldKind = 'filter' | 'strategy';

export interface ScaffoldInputs {
  /** The provided name (`gpu`): the filter or strategy users list in their config. */
  name: string;
  kind: ScaffoldKind;
  /** How the package depends on the SDK while developing (`^1.0.0`, or `file:` the SDK next to this swarm). */
  sdkSpec: string;
  /** The plugin API this host provides (the plugin declares `^major.minor.0`). */
  apiVersion: string;
}

const className = (name: string, suffix: string) =>
  `${name.replace(/(^|[-_.])([a-z0-9])/gi, (_match, _separator: string, letter: string) => letter.toUpperCase())}${suffix}`;

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
      peerDependencies: { '@swarm/plugin-sdk': '^1.0.0' },
      devDependencies: { '@swarm/plugin-sdk': inputs.sdkSpec, '@types/node': '^20.19.0', typescript: '~6.0.3', vitest: '^4.1.12' },
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

function index(inputs: ScaffoldInputs): string {
  const klass = className(inputs.name, inputs.kind === 'filter' ? 'Filter' : 'Strategy');
  const [major, minor] = inputs.apiVersion.split('.');
  return `import { definePlugin } from '@swarm/plugin-sdk';
import { ${klass} } from './${inputs.name}-${inputs.kind}.js';

export { ${klass} };

export const plugin = definePlugin({
  name: 'swarm-plugin-${inputs.name}',
  version: '0.1.0',
  // the plugin API this plugin was written against: hosts with a compatible API load it
  apiVersion: '^${major}.${minor}.0',
  description: 'swarm ${inputs.kind} "${inputs.name}"',
  register(ctx) {
    ctx.${inputs.kind}('${inputs.name}', { useFactory: () => new ${klass}() });
  },
});

export default plugin;
`;
}

function filterSource(name: string): string {
  return `import { fail, PASS, type Filter, type FilterRun, type PlacementRequest } from '@swarm/plugin-sdk';

/**
 * Keeps containers off nodes whose engine label \`${name}\` is \`off\`; a container created with
 * \`-e ${name}=required\` only goes where the label is \`on\`. Change it to your own rule.
 */
export class ${className(name, 'Filter')} implements Filter {
  readonly name = '${name}';

  prepare(request: PlacementRequest): FilterRun {
    const required = (request.config.Env ?? []).includes('${name}=required');
    return {
      conditions: [required ? '${name}=on' : '${name}!=off'],
      check: (node) => {
        const label = node.labels()['${name}'];
        if (label === 'off') return fail('${name} is off');
        if (required && label !== 'on') return fail('${name} is not on');
        return PASS;
      },
    };
  }
}
`;
}

function strategySource(name: string): string {
  return `import type { Node, PlacementRequest, RankedNode, Strategy } from '@swarm/plugin-sdk';
import { SdkErrors } from '@swarm/plugin-sdk/helpers';

/**
 * Ranks the nodes that can hold the request's CPUs and memory, fewest containers first (ties by
 * name); none can: Swarm classic's "no resources available to schedule container". Change the
 * ranking to your own rule.
 */
export class ${className(name, 'Strategy')} implements Strategy {
  readonly name = '${name}';

  rank(request: PlacementRequest, nodes: readonly Node[]): RankedNode[] {
    const fitting = nodes.filter(
      (node) =>
        node.usedCpus() + request.cpus <= node.totalCpus() && node.usedMemory() + request.memory <= node.totalMemory(),
    );
    if (fitting.length === 0) throw SdkErrors.noResources();
    return fitting
      .sort((a, b) => a.containers().length - b.containers().length || a.name.localeCompare(b.name))
      .map((node) => ({ node, score: node.containers().length }));
  }
}
`;
}

function filterTest(name: string): string {
  const klass = className(name, 'Filter');
  return `import { describe, expect, it } from 'vitest';
import { fakeNodes, filterConformance, runFilterCases } from '@swarm/plugin-sdk/testing';
import { plugin, ${klass} } from '../dist/index.js';

const filter = new ${klass}();
const nodes = fakeNodes([
  { name: 'node1', labels: { ${JSON.stringify(name)}: 'on' } },
  { name: 'node2', labels: { ${JSON.stringify(name)}: 'off' } },
  { name: 'node3' },
]);

describe('${name} filter', () => {
  filterConformance(filter, { it });
  runFilterCases(filter, [
    { name: 'keeps containers off nodes where ${name} is off', config: {}, nodes, pass: ['node1', 'node3'], reasons: { node2: '${name} is off' } },
    { name: 'required: only where ${name} is on', config: { env: ['${name}=required'] }, nodes, pass: ['node1'] },
  ], { it });

  it('is a plugin providing the filter', () => {
    expect(plugin.name).toBe('swarm-plugin-${name}');
  });
});
`;
}

function strategyTest(name: string): string {
  const klass = className(name, 'Strategy');
  return `import { describe, expect, it } from 'vitest';
import { fakeNodes, placementRequest, strategyConformance } from '@swarm/plugin-sdk/testing';
import { plugin, ${klass} } from '../dist/index.js';

const strategy = new ${klass}();

describe('${name} strategy', () => {
  strategyConformance(strategy, { it });

  it('ranks the emptiest node first', () => {
    const nodes = fakeNodes([
      { name: 'busy', containers: [{ name: 'a' }, { name: 'b' }] },
      { name: 'idle' },
    ]);
    expect(strategy.rank(placementRequest({}), nodes).map((ranked) => ranked.node.name)).toEqual(['idle', 'busy']);
  });

  it('is a plugin providing the strategy', () => {
    expect(plugin.name).toBe('swarm-plugin-${name}');
  });
});
`;
}

function readme(inputs: ScaffoldInputs): string {
  const use =
    inputs.kind === 'filter'
      ? `scheduler: { filters: ['health', 'constraint', '${inputs.name}'], strategy: 'spread' }`
      : `scheduler: { strategy: '${inputs.name}' }`;
  return `# swarm-plugin-${inputs.name}

A swarm ${inputs.kind}, \`${inputs.name}\`.

\`\`\`sh
npm install && npm test          # builds, runs the SDK's conformance checks and the cases
npm pack                         # swarm-plugin-${inputs.name}-0.1.0.tgz
\`\`\`

Install the tarball next to your \`swarm.config.js\` and list it:

\`\`\`js
export default { plugins: ['${inputs.name}'], ${use} };
\`\`\`

\`npx swarm plugins\` shows it with \`${inputs.kind} ${inputs.name}\`.
`;
}

/** The files of a new plugin package. */
export function pluginFiles(inputs: ScaffoldInputs): PluginFiles {
  const source = inputs.kind === 'filter' ? filterSource(inputs.name) : strategySource(inputs.name);
  const test = inputs.kind === 'filter' ? filterTest(inputs.name) : strategyTest(inputs.name);
  return {
    'package.json': packageJson(inputs),
    'tsconfig.json': TSCONFIG,
    'README.md': readme(inputs),
    '.gitignore': 'node_modules/\ndist/\n*.tgz\n',
    'src/index.ts': index(inputs),
    [`src/${inputs.name}-${inputs.kind}.ts`]: source,
    [`test/${inputs.name}.test.ts`]: test,
  };
}
