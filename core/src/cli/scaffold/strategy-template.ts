import { className, type PluginFiles } from './template-parts.js';

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

/** A strategy ranking the emptiest nodes first, with its conformance checks and a case. */
export function strategyFiles(name: string): PluginFiles {
  return { [`src/${name}-strategy.ts`]: strategySource(name), [`test/${name}.test.ts`]: strategyTest(name) };
}
