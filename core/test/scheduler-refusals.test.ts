import { describe, expect, it } from 'vitest';
import { ErrorCodes, isSwarmError, type Node, type PlacementExplanation } from '@swarm/plugin-sdk';
import { fakeNode, fakeNodes, runConfig, type RunSpec } from '@swarm/plugin-sdk/testing';
import { createScheduler } from '../dist/scheduler/index.js';
import { defaultFilters, strategy } from './scheduler-support.js';

const GiB = 1024 ** 3;
const scheduler = createScheduler(defaultFilters(), strategy('spread'));

function refusal(
  spec: RunSpec,
  nodes: readonly Node[],
): { code: string; message: string; status: number; explanation: PlacementExplanation } {
  try {
    scheduler.select(scheduler.request(runConfig(spec)), nodes);
  } catch (error) {
    if (!isSwarmError(error)) throw error;
    return {
      code: error.code,
      message: error.message,
      status: error.httpStatus,
      explanation: error.details?.['explanation'] as PlacementExplanation,
    };
  }
  throw new Error('the container was placed');
}

const portTaken = (name: string): Node =>
  fakeNode({ name, labels: { storage: 'ssd' }, containers: [{ name: `web-${name}`, publish: ['80:80'] }] });

describe('scheduler pipeline: refusals', () => {
  it("lists Swarm classic's conditions up to the filter that ran out of nodes, then the per-node breakdown", () => {
    const nodes = [
      portTaken('node1'),
      portTaken('node2'),
      ...fakeNodes([{ name: 'node3' }, { name: 'node4' }, { name: 'node5', labels: { storage: 'disk' } }]),
    ];
    const { code, message, explanation } = refusal({ publish: ['80:80'], constraints: ['storage==ssd'] }, nodes);
    expect(code).toBe(ErrorCodes.FILTER_UNSATISFIED);
    expect(message).toBe(
      'Unable to find a node that satisfies the following conditions \n[port 80 (Bridge mode)]\n[available container slots]\n[storage==ssd]\n' +
        '0/5 nodes are available: 2 port 80 (Bridge mode), 3 constraint storage==ssd.',
    );
    expect(explanation.error).toBe(message);
    expect(explanation.nodes.map((node) => node.verdicts.at(-1)?.reason)).toEqual([
      'port 80 (Bridge mode)',
      'port 80 (Bridge mode)',
      'constraint storage==ssd',
      'constraint storage==ssd',
      'constraint storage==ssd',
    ]);
  });

  it('a port clash alone lists the port condition only', () => {
    const { message } = refusal({ publish: ['80:80'] }, [portTaken('node1'), portTaken('node2')]);
    expect(message).toBe(
      'Unable to find a node that satisfies the following conditions \n[port 80 (Bridge mode)]\n0/2 nodes are available: 2 port 80 (Bridge mode).',
    );
  });

  it('affinities are listed with their softness, dependencies as flags', () => {
    const nodes = [fakeNode({ name: 'node1', containers: [{ name: 'db' }] }), fakeNode({ name: 'node2' })];
    const { message } = refusal({ links: ['db:db'], affinities: ['container!=db'] }, nodes);
    expect(message).toBe(
      'Unable to find a node that satisfies the following conditions \n[available container slots]\n[--link=db:db]\n[container!=db (soft=false)]\n' +
        '0/2 nodes are available: 1 dependency --link=db:db, 1 affinity container!=db.',
    );
  });

  it('a full cluster answers the containerslots condition', () => {
    const nodes = [fakeNode({ name: 'node1', labels: { containerslots: '1' }, containers: [{ name: 'a', state: 'exited' }] })];
    expect(refusal({}, nodes).message).toBe(
      'Unable to find a node that satisfies the following conditions \n[available container slots]\n0/1 nodes are available: 1 no available container slots.',
    );
  });

  it('soft expressions that still leave no node after the second pass are listed with the rest', () => {
    const { message, explanation } = refusal({ constraints: ['storage==~ssd', 'node==node9'] }, fakeNodes(2));
    expect(message).toBe(
      'Unable to find a node that satisfies the following conditions \n[available container slots]\n[storage==ssd node==node9]\n' +
        '0/2 nodes are available: 2 constraint node==node9.',
    );
    expect(explanation.softDropped).toBe(true);
  });

  it('no healthy node: the health filter text', () => {
    const { code, message } = refusal({}, [fakeNode({ name: 'node1', healthy: false }), fakeNode({ name: 'node2', status: 'pending' })]);
    expect(code).toBe(ErrorCodes.NO_NODE_AVAILABLE);
    expect(message).toBe('No healthy node available in the cluster\n0/2 nodes are available: 2 node unhealthy.');
  });

  it('an empty cluster', () => {
    const { code, message } = refusal({}, []);
    expect(code).toBe(ErrorCodes.NO_NODE_AVAILABLE);
    expect(message).toBe('No nodes available in the cluster');
    expect(scheduler.explain(scheduler.request(runConfig()), [])).toMatchObject({ error: 'No nodes available in the cluster', nodes: [] });
  });

  it('memory and CPU over-asks: the strategy text', () => {
    for (const spec of [{ memory: 64 * GiB }, { cpus: 64 }]) {
      const { code, message } = refusal(spec, fakeNodes(2));
      expect(code).toBe(ErrorCodes.NO_RESOURCES);
      expect(message).toBe('no resources available to schedule container\n0/2 nodes are available: 2 insufficient resources.');
    }
  });

  it("an invalid expression is refused with Swarm classic's text, naming the filter and the expression, with status 400", () => {
    const { code, message, status } = refusal({ constraints: ['zone==a', 'x==1'] }, fakeNodes(2));
    expect({ code, status }).toEqual({ code: ErrorCodes.INVALID_EXPRESSION, status: 400 });
    expect(message).toBe(
      'Unable to find a node that satisfies the following conditions \n[available container slots]\nerror from constraint filter: ' +
        'Key \'x\' is invalid\ninvalid constraint "x==1": a key is a letter or _ followed by at least one letter, digit, -, _, . or /',
    );
    // the filters before the failing one list their conditions, as classic's listAllFilters does
    expect(refusal({ affinities: ['container==web'], constraints: ['node=!!bad'] }, fakeNodes(1)).message).toBe(
      'Unable to find a node that satisfies the following conditions \n[available container slots]\n[container==web (soft=false)]\n' +
        'error from constraint filter: One of operator ==, != is expected\n' +
        'invalid constraint "node=!!bad": write key==value or key!=value (a value starting with ~ is soft)',
    );
  });

  it('explain never throws and reports why', () => {
    const explanation = scheduler.explain(scheduler.request(runConfig({ constraints: ['storage==ssd'] })), fakeNodes(2));
    expect(explanation).toMatchObject({ summary: '0/2 nodes are available: 2 constraint storage==ssd.', strategy: 'spread' });
    expect(explanation.chosen).toBeUndefined();
    expect(explanation.error).toContain('[storage==ssd]');
    const invalid = scheduler.explain(scheduler.request(runConfig({ affinities: ['nope'] })), fakeNodes(1));
    expect(invalid.error).toContain('\nerror from affinity filter: One of operator ==, != is expected\ninvalid affinity "nope": ');
    expect(invalid.summary).toBe('0/1 nodes are available: invalid affinity "nope".');
    const fine = scheduler.explain(scheduler.request(runConfig()), fakeNodes(2));
    expect(fine).toMatchObject({ chosen: 'node1', summary: '2/2 nodes are available.' });
    expect(fine.nodes.map((node) => node.rank)).toEqual([1, 2]);
  });
});
