import { describe, expect, it } from 'vitest';
import { ErrorCodes, PASS, fail, type Filter } from '@swarm/plugin-sdk';
import { fakeNodes, placementRequest, testScheduler } from '@swarm/plugin-sdk/testing';

const GiB = 1024 ** 3;
const nodes = fakeNodes([
  { name: 'gpu1', labels: { gpu: 'on' }, memory: 2 * GiB },
  { name: 'cpu1', memory: 8 * GiB },
  { name: 'down', healthy: false },
]);
const gpu: Filter = {
  name: 'gpu',
  prepare: () => ({ conditions: ['gpu'], check: (node) => (node.labels()['gpu'] ? PASS : fail('no gpu')) }),
};
const never: Filter = { name: 'never', prepare: () => ({ conditions: ['never'], check: () => fail('never') }) };

describe('testScheduler (the test kit scheduler drivers are built with)', () => {
  it('places on the nodes the filters leave, best first by name, and explains every node as the host does', () => {
    const scheduler = testScheduler({ filters: [gpu, never] });
    const explanation = scheduler.explain(placementRequest({}), nodes);
    expect(explanation.nodes.map((node) => [node.name, node.feasible, node.verdicts])).toEqual([
      [
        'gpu1',
        false,
        [
          { filter: 'gpu', pass: true },
          { filter: 'never', pass: false, reason: 'never' },
        ],
      ],
      // verdicts stop at the first filter that refuses the node
      ['cpu1', false, [{ filter: 'gpu', pass: false, reason: 'no gpu' }]],
      ['down', false, [{ filter: 'health', pass: false, reason: 'node is unhealthy' }]],
    ]);
    expect(() => scheduler.select(placementRequest({}), nodes)).toThrow(expect.objectContaining({ code: ErrorCodes.FILTER_UNSATISFIED }));
    expect(
      testScheduler({ filters: [gpu] })
        .select(placementRequest({}), nodes)
        .ranked.map((entry) => entry.node.name),
    ).toEqual(['gpu1']);
  });

  it("refuses with Swarm classic's no-resources error when no healthy node has room; a feasible node without room is not ranked", () => {
    const scheduler = testScheduler();
    const big = placementRequest({ memory: 4 * GiB });
    expect(scheduler.select(big, nodes).ranked.map((entry) => entry.node.name)).toEqual(['cpu1']);
    const gpu1 = scheduler.explain(big, nodes).nodes.find((node) => node.name === 'gpu1');
    expect(gpu1).toMatchObject({ feasible: true });
    expect(gpu1?.rank).toBeUndefined();
    expect(() => scheduler.select(placementRequest({ memory: 64 * GiB }), nodes)).toThrow(
      expect.objectContaining({ code: ErrorCodes.NO_RESOURCES, message: 'no resources available to schedule container' }),
    );
  });
});
