import { describe, expect, it } from 'vitest';
import { ErrorCodes, isSwarmError } from '@swarm/plugin-sdk';
import type { ContainerSummary } from '@swarm/plugin-sdk/docker';
import { moveEnvDirectivesToLabels, reschedulePolicy } from '@swarm/plugin-sdk/helpers';
import { ContainerIndex } from '../src/container-index.js';
import { EngineContainer } from '../src/engine-container.js';
import { EngineNode, type NodeChangeListener } from '../src/engine-node.js';
import { JsonPool } from '../src/shared-json.js';

function refusal(env: string[], labels: Record<string, string> = {}): string {
  try {
    reschedulePolicy(moveEnvDirectivesToLabels({ Image: 'busybox', Env: env, Labels: labels }));
  } catch (error) {
    expect(isSwarmError(error, ErrorCodes.INVALID_ARGUMENT) && error.httpStatus).toBe(400);
    return (error as Error).message;
  }
  return 'accepted';
}

describe('reschedule policies', () => {
  it('reads on-node-failure from env or label, off by default', () => {
    expect(reschedulePolicy(moveEnvDirectivesToLabels({ Image: 'busybox', Env: ['reschedule:on-node-failure'] }))).toBe('on-node-failure');
    expect(reschedulePolicy({ Image: 'busybox', Labels: { 'com.docker.swarm.reschedule-policies': '["off"]' } })).toBe('off');
    expect(reschedulePolicy({ Image: 'busybox' })).toBe('off');
  });

  it("refuses with Swarm classic's texts", () => {
    expect(refusal([], { 'com.docker.swarm.reschedule-policies': '["false"]' })).toBe('invalid reschedule policy: false');
    expect(refusal(['reschedule:off'], { 'com.docker.swarm.reschedule-policies': '["on-node-failure"]' })).toBe(
      'too many reschedule policies',
    );
  });
});

describe('a container moved off a dead engine', () => {
  const index = new ContainerIndex();
  const listener: NodeChangeListener = {
    containerChanged: (_node, before, after) => index.update(before, after),
    resourcesChanged: () => undefined,
  };
  const node = new EngineNode({
    addr: '127.0.0.9:2375',
    ip: '127.0.0.9',
    engineEndpoint: { protocol: 'http', host: '127.0.0.9', port: 2375 },
    overcommitPercent: 5,
    failureRetry: 2,
    listener,
    json: new JsonPool(),
  });
  const row = (state: string): ContainerSummary => ({ Id: 'c1', Names: ['/web'], Image: 'busybox', Created: 0, State: state, Labels: {} });

  /** The container web (c1) as the engine lists it, in `state`. */
  const busybox = (state: string) =>
    new EngineContainer({ node, json: node.json, summary: row(state), config: { Image: 'busybox' }, inspect: undefined, reservedCpus: 0 });

  it('stays gone while late answers from the engine arrive, and counts as running if it stopped as the engine went down', () => {
    const before = Date.now();
    node.upsertContainer(busybox('running'));
    node.upsertContainer(busybox('exited'));
    const stopped = node.knownContainer('c1')!;
    expect(node.ranSince(stopped, before)).toBe(true);
    expect(node.ranSince(stopped, Date.now() + 1)).toBe(false);
    node.moveAway('c1');
    node.upsertContainer(busybox('exited'));
    expect(index.find('web')).toBeUndefined();
    node.acceptMovedAway();
    node.upsertContainer(busybox('exited'));
    expect(index.find('web')?.id).toBe('c1');
  });
});
