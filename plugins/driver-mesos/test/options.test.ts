import { describe, expect, it } from 'vitest';
import { parseMesosOptions } from '../src/options.js';

describe('mesos options', () => {
  it('has Swarm classic defaults', () => {
    const options = parseMesosOptions({}, {});
    expect(options).toMatchObject({ taskTimeoutMs: 5000, offerTimeoutMs: 30_000, refuseTimeoutMs: 5000, checkpoint: false, role: '*' });
  });

  it('reads cluster options first, then SWARM_MESOS_* variables', () => {
    const options = parseMesosOptions(
      { 'mesos.tasktimeout': '1m30s' },
      { SWARM_MESOS_TASK_TIMEOUT: '9s', SWARM_MESOS_OFFER_TIMEOUT: '250ms', SWARM_MESOS_USER: 'bob' },
    );
    expect(options.taskTimeoutMs).toBe(90_000);
    expect(options.offerTimeoutMs).toBe(250);
    expect(options.user).toBe('bob');
  });

  it('rejects bad values with Swarm classic texts', () => {
    expect(() => parseMesosOptions({ 'mesos.tasktimeout': '123asd' }, {})).toThrow(/Failed to parse mesos.tasktimeout in Duration/);
    expect(() => parseMesosOptions({ 'mesos.offertimeout': '-1s' }, {})).toThrow('mesos.offerTimeout cannot be a negative number');
    expect(() => parseMesosOptions({ 'mesos.checkpointfailover': 'maybe' }, {})).toThrow(
      /Failed to parse mesos.checkpointfailover in Bool/,
    );
  });
});
