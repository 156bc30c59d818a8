import Docker from 'dockerode';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestbed, type Testbed } from '../harness/engines.js';
import { startMesosMaster, type MesosMasterDouble } from '../mesos-double/index.js';
import { RawScheduler, isUpdate, post, type RawEvent, type UpdateEvent } from '../mesos-double/raw-scheduler.js';

// Engines 60-61 act as the agents of a Mesos master double; a hand-driven scheduler checks the protocol.
let testbed: Testbed;
let master: MesosMasterDouble;
const schedulers: RawScheduler[] = [];

const framework = (extra: Record<string, unknown> = {}) => ({ user: 'root', name: 'double-test', ...extra });
type OfferJson = {
  id: { value: string };
  agent_id: { value: string };
  hostname: string;
  resources: Array<{ name: string; scalar?: { value: number }; ranges?: { range: Array<{ begin: number; end: number }> } }>;
  attributes: Array<{ name: string; text: { value: string } }>;
};
const offersOf = (event: RawEvent) => (event as unknown as { offers: { offers: OfferJson[] } }).offers.offers;

async function subscribe(extra: Record<string, unknown> = {}): Promise<RawScheduler> {
  const scheduler = await RawScheduler.subscribe(master.address, framework(extra));
  schedulers.push(scheduler);
  await scheduler.next((event) => event.type === 'SUBSCRIBED');
  return scheduler;
}

function launchCall(offer: OfferJson, taskId: string, cmd: string[], refuseSeconds = 1) {
  return {
    type: 'ACCEPT',
    accept: {
      offer_ids: [offer.id],
      filters: { refuse_seconds: refuseSeconds },
      operations: [
        {
          type: 'LAUNCH',
          launch: {
            task_infos: [
              {
                name: taskId,
                task_id: { value: taskId },
                agent_id: offer.agent_id,
                resources: [
                  { name: 'cpus', type: 'SCALAR', scalar: { value: 0.1 } },
                  { name: 'mem', type: 'SCALAR', scalar: { value: 32 } },
                ],
                command: { shell: false, value: cmd[0], arguments: cmd.slice(1) },
                container: {
                  type: 'DOCKER',
                  docker: {
                    image: 'busybox:local',
                    network: 'BRIDGE',
                    parameters: [
                      { key: 'label', value: 'test.task=' + taskId },
                      { key: 'env', value: 'GREETING=hi' },
                    ],
                  },
                },
              },
            ],
          },
        },
      ],
    },
  };
}

beforeAll(async () => {
  testbed = await startTestbed({ first: 60, count: 2 });
  master = await startMesosMaster({
    agents: testbed.engines.map((engine, index) => ({ host: engine.host, port: engine.port, attributes: { rack: `r${index}` } })),
    heartbeatIntervalSeconds: 1,
    statusRetryMs: 500,
  });
});

afterAll(async () => {
  for (const scheduler of schedulers) scheduler.close();
  await master?.stop();
  await testbed?.stop();
});

afterEach(() => {
  for (const scheduler of schedulers) scheduler.close();
});

describe('Mesos master double: call validation', () => {
  it('answers bad requests with the real master status codes and texts', async () => {
    expect(await post(master.address, '{}', {}, 'GET')).toMatchObject({
      status: 405,
      text: "Expecting one of { 'POST' }, but received 'GET'",
    });
    expect(await post(master.address, '{}', {})).toMatchObject({ status: 400, text: "Expecting 'Content-Type' to be present" });
    expect(await post(master.address, '{}', { 'Content-Type': 'text/plain' })).toMatchObject({
      status: 415,
      text: "Expecting 'Content-Type' of application/json or application/x-protobuf",
    });
    expect((await post(master.address, '{nope')).text).toMatch(/^Failed to parse body into JSON: /);
    expect(await post(master.address, '{"type":"ACCEPT","accept":{}}')).toMatchObject({
      status: 400,
      text: "Failed to validate scheduler::Call: Expecting 'framework_id' to be present",
    });
    expect(await post(master.address, '{"type":"DECLINE","framework_id":{"value":"nope"},"decline":{}}')).toMatchObject({
      status: 400,
      text: 'Framework cannot be found',
    });
    const subscribeWithStream = await post(
      master.address,
      JSON.stringify({ type: 'SUBSCRIBE', subscribe: { framework_info: framework() } }),
      { 'Content-Type': 'application/json', 'Mesos-Stream-Id': 'x' },
    );
    expect(subscribeWithStream).toMatchObject({ status: 400, text: "Subscribe calls should not include the 'Mesos-Stream-Id' header" });
    expect(
      (await post(master.address, JSON.stringify({ type: 'SUBSCRIBE', subscribe: { framework_info: { name: 'x' } } }))).text,
    ).toContain('Missing required fields: subscribe.framework_info.user');
  });

  it('checks the stream ID of non-subscribe calls', async () => {
    const scheduler = await subscribe({ failover_timeout: 60 });
    const body = JSON.stringify({ type: 'REVIVE', framework_id: { value: scheduler.frameworkId } });
    expect(await post(master.address, body)).toMatchObject({
      status: 400,
      text: "All non-subscribe calls should include the 'Mesos-Stream-Id' header",
    });
    const wrong = await post(master.address, body, { 'Content-Type': 'application/json', 'Mesos-Stream-Id': 'other' });
    expect(wrong.status).toBe(400);
    expect(wrong.text).toBe(
      `The stream ID 'other' included in this request didn't match the stream ID currently associated with framework ID ${scheduler.frameworkId}`,
    );
    expect((await scheduler.call({ type: 'REVIVE' })).status).toBe(202);
    scheduler.close();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await post(master.address, body, { 'Content-Type': 'application/json', 'Mesos-Stream-Id': scheduler.streamId })).toMatchObject({
      status: 403,
      text: 'Framework is not subscribed',
    });
  });

  it('forgets a framework without failover_timeout as soon as its stream closes', async () => {
    const scheduler = await subscribe();
    scheduler.close();
    await new Promise((resolve) => setTimeout(resolve, 200));
    const body = JSON.stringify({ type: 'REVIVE', framework_id: { value: scheduler.frameworkId } });
    expect(await post(master.address, body, { 'Content-Type': 'application/json', 'Mesos-Stream-Id': scheduler.streamId })).toMatchObject({
      status: 400,
      text: 'Framework cannot be found',
    });
  });
});

describe('Mesos master double: offers, tasks and status updates', () => {
  it('offers each engine as an agent with its CPUs, memory, ports and attributes, and sends heartbeats', async () => {
    const scheduler = await subscribe();
    const offers = offersOf(await scheduler.next((event) => event.type === 'OFFERS'));
    const info = (await new Docker({ host: testbed.engines[0]!.host, port: 2375 }).info()) as { NCPU: number; Name: string };
    const first = offers.find((offer) => offer.hostname === info.Name);
    expect(first).toBeDefined();
    expect(first!.resources.find((resource) => resource.name === 'cpus')?.scalar?.value).toBe(info.NCPU);
    expect(first!.resources.find((resource) => resource.name === 'ports')?.ranges?.range).toEqual([{ begin: 31000, end: 31099 }]);
    expect(first!.attributes).toEqual([{ name: 'rack', type: 'TEXT', text: { value: 'r0' } }]);
    await scheduler.next((event) => event.type === 'HEARTBEAT', 3000);
    scheduler.close();
  });

  it('launches an accepted Docker task, resends updates until acknowledged, and reports the container in TASK_RUNNING', async () => {
    const scheduler = await subscribe({ failover_timeout: 60 });
    const offer = offersOf(await scheduler.next((event) => event.type === 'OFFERS'))[0]!;
    expect((await scheduler.call(launchCall(offer, 'web.1', ['sleep', '300']))).status).toBe(202);
    const starting = (await scheduler.next(isUpdate('web.1', 'TASK_STARTING'))) as UpdateEvent;
    expect(starting.update.status.uuid).toBeTruthy();
    // Not acknowledged: the same update comes again, and TASK_RUNNING waits behind it.
    const firstIndex = scheduler.events.indexOf(starting);
    const again = (await scheduler.next(isUpdate('web.1', 'TASK_STARTING'), 3000, firstIndex + 1)) as UpdateEvent;
    expect(again.update.status.uuid).toBe(starting.update.status.uuid);
    expect(scheduler.events.some(isUpdate('web.1', 'TASK_RUNNING'))).toBe(false);
    await scheduler.call({
      type: 'ACKNOWLEDGE',
      acknowledge: { agent_id: offer.agent_id, task_id: { value: 'web.1' }, uuid: starting.update.status.uuid },
    });
    const running = (await scheduler.next(isUpdate('web.1', 'TASK_RUNNING'))) as UpdateEvent;
    const inspect = JSON.parse(Buffer.from(running.update.status.data!, 'base64').toString('utf8')) as Array<{
      Id: string;
      Config: { Labels: Record<string, string>; Env: string[] };
    }>;
    const engine = testbed.engines.find((candidate) => offer.hostname === candidate.name)!;
    const container = await new Docker({ host: engine.host, port: engine.port }).getContainer(inspect[0]!.Id).inspect();
    expect(container.State.Running).toBe(true);
    expect(container.Config.Labels['test.task']).toBe('web.1');
    expect(container.Config.Env).toContain('GREETING=hi');
    await scheduler.call({
      type: 'ACKNOWLEDGE',
      acknowledge: { agent_id: offer.agent_id, task_id: { value: 'web.1' }, uuid: running.update.status.uuid },
    });

    // Explicit and implicit reconciliation: latest state, no uuid.
    const mark = scheduler.events.length;
    await scheduler.call({ type: 'RECONCILE', reconcile: { tasks: [{ task_id: { value: 'web.1' } }, { task_id: { value: 'ghost' } }] } });
    const reconciled = (await scheduler.next(isUpdate('web.1', 'TASK_RUNNING'), 5000, mark)) as UpdateEvent;
    expect(reconciled.update.status).toMatchObject({ reason: 'REASON_RECONCILIATION' });
    expect(reconciled.update.status.uuid).toBeUndefined();
    await scheduler.next(isUpdate('ghost', 'TASK_LOST'), 5000, mark);

    // KILL: TASK_KILLED, and the container stops.
    await scheduler.call({ type: 'KILL', kill: { task_id: { value: 'web.1' }, agent_id: offer.agent_id } });
    const killed = (await scheduler.next(isUpdate('web.1', 'TASK_KILLED'))) as UpdateEvent;
    expect(killed.update.status.uuid).toBeTruthy();
    expect((await new Docker({ host: engine.host, port: engine.port }).getContainer(inspect[0]!.Id).inspect()).State.Running).toBe(false);
    scheduler.close();
  });

  it('honours refuse_seconds on DECLINE, SUPPRESS and REVIVE', async () => {
    const scheduler = await subscribe();
    const offers = offersOf(await scheduler.next((event) => event.type === 'OFFERS'));
    await scheduler.call({ type: 'DECLINE', decline: { offer_ids: offers.map((offer) => offer.id), filters: { refuse_seconds: 2 } } });
    const declinedAt = Date.now();
    const mark = scheduler.events.length;
    await scheduler.next((event) => event.type === 'OFFERS', 5000, mark);
    expect(Date.now() - declinedAt).toBeGreaterThanOrEqual(1900);
    await scheduler.call({ type: 'SUPPRESS' });
    const reOffered = offersOf(scheduler.events.slice(mark).find((event) => event.type === 'OFFERS')!);
    await scheduler.call({ type: 'DECLINE', decline: { offer_ids: reOffered.map((offer) => offer.id), filters: { refuse_seconds: 0 } } });
    const suppressedMark = scheduler.events.length;
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(scheduler.events.slice(suppressedMark).some((event) => event.type === 'OFFERS')).toBe(false);
    await scheduler.call({ type: 'REVIVE' });
    await scheduler.next((event) => event.type === 'OFFERS', 3000, suppressedMark);
    scheduler.close();
  });

  it('reports a task that cannot start as TASK_FAILED, and one on stale offers as TASK_LOST', async () => {
    const scheduler = await subscribe();
    scheduler.autoAck = true;
    const offer = offersOf(await scheduler.next((event) => event.type === 'OFFERS'))[0]!;
    const call = launchCall(offer, 'bad.1', ['sleep', '1']);
    call.accept.operations[0]!.launch.task_infos[0]!.container.docker.image = 'no-such-image:1';
    await scheduler.call(call);
    const failed = (await scheduler.next(isUpdate('bad.1', 'TASK_FAILED'))) as UpdateEvent;
    expect(failed.update.status.message).toMatch(/^Failed to launch container: .*no-such-image/);
    await scheduler.call(launchCall(offer, 'stale.1', ['sleep', '1']));
    const lost = (await scheduler.next(isUpdate('stale.1', 'TASK_LOST'))) as UpdateEvent;
    expect(lost.update.status).toMatchObject({ reason: 'REASON_INVALID_OFFERS' });
    scheduler.close();
  });
});

describe('Mesos master double: failover', () => {
  it('sends "Framework failed over" on the old stream when the framework subscribes again', async () => {
    const first = await subscribe({ failover_timeout: 30 });
    const second = await subscribe({ failover_timeout: 30, id: { value: first.frameworkId } });
    expect(second.frameworkId).toBe(first.frameworkId);
    const error = await first.next((event) => event.type === 'ERROR');
    expect(error).toEqual({ type: 'ERROR', error: { message: 'Framework failed over' } });
    await first.next(() => false, 2000).catch(() => undefined);
    expect(first.ended).toBe(true);
    second.close();
  });

  it('removes a framework and kills its tasks when failover_timeout expires', async () => {
    const scheduler = await subscribe({ failover_timeout: 1 });
    scheduler.autoAck = true;
    const offer = offersOf(await scheduler.next((event) => event.type === 'OFFERS'))[0]!;
    await scheduler.call(launchCall(offer, 'short.1', ['sleep', '300']));
    const running = (await scheduler.next(isUpdate('short.1', 'TASK_RUNNING'))) as UpdateEvent;
    const containerId = (JSON.parse(Buffer.from(running.update.status.data!, 'base64').toString('utf8')) as Array<{ Id: string }>)[0]!.Id;
    scheduler.close();
    await new Promise((resolve) => setTimeout(resolve, 2500));
    const engine = testbed.engines.find((candidate) => offer.hostname === candidate.name)!;
    expect((await new Docker({ host: engine.host, port: engine.port }).getContainer(containerId).inspect()).State.Running).toBe(false);
    const back = await RawScheduler.subscribe(master.address, framework({ id: { value: scheduler.frameworkId } }));
    schedulers.push(back);
    expect(await back.next((event) => event.type === 'ERROR')).toEqual({ type: 'ERROR', error: { message: 'Framework has been removed' } });
  });
});
