import { className, type PluginFiles } from './template-parts.js';

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

/** A filter on an engine label named after the plugin, with its conformance checks and cases. */
export function filterFiles(name: string): PluginFiles {
  return { [`src/${name}-filter.ts`]: filterSource(name), [`test/${name}.test.ts`]: filterTest(name) };
}
