import { describe, expect, it } from 'vitest';
import { type Node, type RankedNode } from '@swarm/plugin-sdk';
import { rankByWeight } from '@swarm/plugin-sdk/helpers';
import { fakeNode, placementRequest } from '@swarm/plugin-sdk/testing';

const GiB = 1024 ** 3;

/** A small deterministic generator, so a failure names the case that broke. */
function sequence(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 4294967296;
  };
}

/** Nodes with few distinct reservations, so weights and container counts tie often. */
function tiedNodes(seed: number, count: number): Node[] {
  const random = sequence(seed);
  return Array.from({ length: count }, (_, i) =>
    fakeNode({
      name: `node${i + 1}`,
      cpus: 4,
      memory: 4 * GiB,
      usedCpus: Math.floor(random() * 3),
      usedMemory: Math.floor(random() * 3) * GiB,
      healthIndicator: random() < 0.8 ? 100 : 90,
      containers: Array.from({ length: Math.floor(random() * 3) }, (_, c) => ({ name: `c${c}` })),
    }),
  );
}

const names = (ranked: readonly RankedNode[]) => ranked.map((entry) => `${entry.node.name}:${entry.score}`);

describe('rankByWeight with a limit', () => {
  const weighings = [
    { name: 'spread', healthFactor: -10, lowestFirst: true },
    { name: 'binpack', healthFactor: 10, lowestFirst: false },
    { name: 'fractional weights', healthFactor: -10, lowestFirst: true, weights: { cpu: 0.5, memory: 1.25 } },
  ];

  const requests = [
    { name: 'half a GiB', request: placementRequest({ memory: GiB / 2 }) },
    { name: 'nothing reserved', request: placementRequest({ image: 'busybox' }) },
  ];

  for (const weighing of weighings) {
    for (const { name, request } of requests) {
      it(`${weighing.name}, ${name}: the best nodes are the first ones of the full ranking, ties and all`, () => {
        for (let seed = 1; seed <= 40; seed++) {
          const nodes = tiedNodes(seed, 5 + (seed % 30));
          const full = rankByWeight(request, nodes, weighing);
          for (const limit of [1, 2, 3, 8, nodes.length - 1]) {
            expect(names(rankByWeight(request, nodes, weighing, limit)), `seed ${seed}, limit ${limit}`).toEqual(
              names(full.slice(0, limit)),
            );
          }
        }
      });
    }
  }

  it('leaves out nodes that cannot hold the request, and refuses when none can', () => {
    const nodes = [
      fakeNode({ name: 'small', memory: GiB }),
      fakeNode({ name: 'full', memory: 4 * GiB, usedMemory: 4 * GiB }),
      fakeNode({ name: 'big', memory: 8 * GiB }),
    ];
    const spread = { healthFactor: -10, lowestFirst: true };
    expect(rankByWeight(placementRequest({ memory: 2 * GiB }), nodes, spread, 2).map((entry) => entry.node.name)).toEqual(['big']);
    expect(() => rankByWeight(placementRequest({ memory: 16 * GiB }), nodes, spread, 2)).toThrow(
      'no resources available to schedule container',
    );
  });
});
