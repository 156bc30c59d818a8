import type * as k8s from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { transitionEvents } from '../src/container-events.js';
import { PodContainer, containerState } from '../src/pod-container.js';
import type { Node } from '@swarm/plugin-sdk';

const node = { id: 'n1-uid', name: 'n1', addr: '10.0.0.1:10250', ip: '10.0.0.1' } as Node;

function pod(status: k8s.V1PodStatus, spec: Partial<k8s.V1PodSpec> = { nodeName: 'n1' }, uid = 'u1'): k8s.V1Pod {
  return {
    metadata: {
      name: 'web',
      uid,
      annotations: {
        'swarm.io/container-id': 'f'.repeat(64),
        'swarm.io/container-name': 'web',
        'swarm.io/config': JSON.stringify({ Image: 'busybox', Cmd: ['sleep', '9'] }),
      },
    },
    spec: { containers: [{ name: 'container', image: 'busybox' }], ...spec },
    status,
  };
}

const running = (startedAt = new Date(Date.now() - 5000)) =>
  ({
    phase: 'Running',
    containerStatuses: [
      { name: 'container', image: 'busybox', imageID: 'sha256:1', ready: true, restartCount: 0, state: { running: { startedAt } } },
    ],
  }) as k8s.V1PodStatus;
const ended = (exitCode: number) =>
  ({
    phase: exitCode === 0 ? 'Succeeded' : 'Failed',
    containerStatuses: [
      {
        name: 'container',
        image: 'busybox',
        imageID: 'sha256:1',
        ready: false,
        restartCount: 0,
        state: { terminated: { exitCode, startedAt: new Date(Date.now() - 9000), finishedAt: new Date(Date.now() - 2000) } },
      },
    ],
  }) as k8s.V1PodStatus;

describe('docker state of a pod', () => {
  it('is created while unbound or waiting, running, exited with the code, restarting in back-off', () => {
    expect(containerState(pod({ phase: 'Pending' }, {})).status).toBe('created');
    expect(containerState(pod(running())).status).toBe('running');
    expect(containerState(pod(ended(3)))).toMatchObject({ status: 'exited', exitCode: 3 });
    const backOff = {
      phase: 'Running',
      containerStatuses: [
        {
          name: 'container',
          image: 'b',
          imageID: '',
          ready: false,
          restartCount: 2,
          state: { waiting: { reason: 'CrashLoopBackOff' } },
          lastState: { terminated: { exitCode: 1 } },
        },
      ],
    } as k8s.V1PodStatus;
    expect(containerState(pod(backOff))).toMatchObject({ status: 'restarting', exitCode: 1, restartCount: 2 });
    const pulling = {
      phase: 'Pending',
      containerStatuses: [
        {
          name: 'container',
          image: 'b',
          imageID: '',
          ready: false,
          restartCount: 0,
          state: { waiting: { reason: 'ErrImagePull', message: 'not found' } },
        },
      ],
    } as k8s.V1PodStatus;
    expect(containerState(pod(pulling))).toMatchObject({ status: 'created', error: 'ErrImagePull: not found' });
  });

  it('reads like docker ps', () => {
    const container = new PodContainer(pod(ended(3)), node);
    expect(container.summary).toMatchObject({
      Id: 'f'.repeat(64),
      Names: ['/web'],
      Command: 'sleep 9',
      State: 'exited',
      Status: 'Exited (3) 2 seconds ago',
    });
    expect(new PodContainer(pod(running()), node).summary.Status).toBe('Up 5 seconds');
  });

  it('implies the docker events of each change', () => {
    const created = new PodContainer(pod({ phase: 'Pending' }, {}), node);
    const started = new PodContainer(pod(running()), node);
    const died = new PodContainer(pod(ended(2)), node);
    expect(transitionEvents(undefined, created).map((event) => event.Action)).toEqual(['create']);
    expect(transitionEvents(created, started).map((event) => event.Action)).toEqual(['start']);
    const die = transitionEvents(started, died);
    expect(die.map((event) => event.Action)).toEqual(['die']);
    expect(die[0]).toMatchObject({ Actor: { Attributes: { exitCode: '2', name: 'web', 'node.name': 'n1' } }, from: 'busybox node:n1' });
    // started and ended between two watch events
    expect(transitionEvents(created, died).map((event) => event.Action)).toEqual(['start', 'die']);
  });
});
