import { deepStrictEqual, fail, notStrictEqual, ok, strictEqual } from 'node:assert/strict';
import {
  ANONYMOUS_USER,
  UNAUTHENTICATED_GROUP,
  type AdmissionController,
  type AdmissionFactory,
  type AdmissionRequest,
  type AdmissionVerdict,
  type Caller,
} from '../access.js';
import { ErrorCodes, isSwarmError } from '../errors.js';
import type { ContainerConfig, NetworkCreateRequest } from '../types/docker.js';
import { runAsyncChecks, type Tester } from './checks.js';
import { noopLogger } from './noop-logger.js';

/** One request for the kit: a create (the default) or an update, by a caller (default: anonymous). */
export interface AdmissionCase {
  /** Default: the anonymous caller. */
  readonly caller?: Caller;
  /** Default: `container.create`. */
  readonly action?: AdmissionRequest['action'];
  /**
   * The create body; for an update, what the host sends: the container's config with the update's
   * resource fields merged into its HostConfig (the docker CLI sends 0 for each flag not given).
   */
  readonly config: ContainerConfig;
  /** `network.create`: the network's create body (`config` is then `{ Image: '' }`). */
  readonly network?: NetworkCreateRequest;
}

/** What `admissionConformance` builds the controller with, and the requests it must allow and refuse. */
export interface AdmissionConformanceOptions {
  /** The controller's registered name, for the check names (`admission "policy": ...`). Default `admission`. */
  readonly name?: string;
  /** The options of the config entry (`admission: [['name', options]]`) the checks build it with. Default `{}`. */
  readonly options?: Readonly<Record<string, unknown>>;
  /** Requests it must allow, added to the kit's own samples. */
  readonly allows?: readonly AdmissionCase[];
  /** Requests it must refuse; at least one lets the kit check the refusal's text. */
  readonly refuses?: readonly AdmissionCase[];
  /** Options its factory must refuse with a CONFIG_INVALID SwarmError. */
  readonly invalidOptions?: readonly Readonly<Record<string, unknown>>[];
}

const ANONYMOUS: Caller = { user: ANONYMOUS_USER, groups: [UNAUTHENTICATED_GROUP], method: '' };
const ALICE: Caller = { user: 'alice', groups: ['team-a'], method: 'TLS' };

/** `docker run` shapes from harmless to every escalation, and updates, as the CLI sends them. */
const SAMPLES: readonly AdmissionCase[] = [
  { config: { Image: 'busybox' } },
  {
    caller: ALICE,
    config: { Image: 'busybox', User: '1000', HostConfig: { Memory: 1 << 28, NanoCpus: 5e8, SecurityOpt: ['no-new-privileges'] } },
  },
  { caller: ALICE, config: { Image: 'busybox', HostConfig: { Privileged: true, NetworkMode: 'host', PidMode: 'host' } } },
  {
    config: {
      Image: 'busybox',
      HostConfig: { Binds: ['/etc:/host-etc:ro', 'data:/data'], CapAdd: ['SYS_ADMIN'], Devices: [{ PathOnHost: '/dev/sda' }] },
    },
  },
  {
    config: {
      Image: 'busybox',
      HostConfig: { SecurityOpt: ['seccomp=unconfined', 'apparmor=unconfined'], Sysctls: { 'kernel.msgmax': '1' } },
    },
  },
  { action: 'container.update', config: { Image: 'busybox', HostConfig: { Memory: 0, NanoCpus: 0, CpuShares: 512 } } },
  { caller: ALICE, action: 'container.update', config: { Image: 'busybox', User: '1000', HostConfig: { Memory: -1, CpuQuota: -1 } } },
  // network creates (plugin API 2.2): a controller that does not read `network` lets them pass, as a 2.1 host did
  { action: 'network.create', config: { Image: '' }, network: { Name: 'n', Labels: { 'com.docker.compose.project': 'p' } } },
  {
    caller: ALICE,
    action: 'network.create',
    config: { Image: '' },
    network: { Name: 'n', Driver: 'macvlan', Options: { parent: 'eth0', 'com.docker.network.bridge.name': 'docker0' } },
  },
];

/** A field path as Docker names body fields: `HostConfig.Binds[0]`, `HostConfig.Sysctls["kernel.msgmax"]`. */
const FIELD_PATH = /^[A-Za-z][\w-]*(?:\.[A-Za-z][\w-]*|\[\d+\]|\["(?:[^"\\]|\\.)*"\])*$/;

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const item of Object.values(value)) deepFreeze(item);
  }
  return value;
}

function request(sample: AdmissionCase, config: ContainerConfig = structuredClone(sample.config)): AdmissionRequest {
  const network = sample.network === undefined ? {} : { network: structuredClone(sample.network) };
  return { caller: sample.caller ?? ANONYMOUS, action: sample.action ?? 'container.create', config, ...network };
}

const describe = (sample: AdmissionCase) => `${sample.action ?? 'container.create'} ${JSON.stringify(sample.network ?? sample.config)}`;

function assertVerdict(verdict: AdmissionVerdict, what: string): void {
  ok(typeof verdict === 'object' && verdict !== null, `${what}: the verdict is an object`);
  strictEqual(typeof verdict.allowed, 'boolean', `${what}: allowed is a boolean`);
  if (verdict.allowed) {
    const amended = verdict.amended;
    ok(
      amended === undefined || (typeof amended === 'object' && amended !== null && !Array.isArray(amended)),
      `${what}: amended is an object or absent`,
    );
    return;
  }
  for (const key of ['policy', 'rule', 'field'] as const) {
    ok(typeof verdict[key] === 'string' && verdict[key].trim() !== '', `${what}: a refusal names its ${key}`);
  }
  ok(FIELD_PATH.test(verdict.field), `${what}: field ${JSON.stringify(verdict.field)} is a path into the body (HostConfig.Binds[0])`);
  ok(verdict.detail === undefined || (typeof verdict.detail === 'string' && verdict.detail !== ''), `${what}: detail is text or absent`);
  ok(verdict.missing === undefined || typeof verdict.missing === 'boolean', `${what}: missing is a boolean or absent`);
  const message = `admission policy "${verdict.policy}" forbids ${verdict.field}${verdict.detail ?? ''}`;
  ok(!/[\r\n]/.test(message), `${what}: the refusal's text is one line: ${message}`);
}

/**
 * Checks every admission controller must pass, given its factory (as the plugin registers it:
 * `pluginProviders(plugin).get(Tokens.AdmissionController, name)`): it builds from its factory, answers well-formed
 * verdicts (refusals that name the policy, the rule and a field path, in one line), never changes
 * the config it is given, answers anonymous callers, is deterministic, amends only into plain JSON
 * objects that it then allows itself, and refuses bad options with CONFIG_INVALID. With a tester
 * (vitest's `{ it }`) one test per check; without, they run now and the promise rejects on the
 * first failure.
 */
export function admissionConformance(factory: AdmissionFactory, options: AdmissionConformanceOptions = {}, tester?: Tester): Promise<void> {
  const label = options.name === undefined ? 'admission' : `admission "${options.name}"`;
  const build = async (): Promise<AdmissionController> =>
    factory({ options: options.options ?? {}, configDir: process.cwd(), logger: noopLogger });
  const samples = [...SAMPLES, ...(options.allows ?? []), ...(options.refuses ?? [])];
  const judge = async (controller: AdmissionController, sample: AdmissionCase) => controller.admit(request(sample));
  return runAsyncChecks(
    [
      {
        name: `${label}: builds from its factory with the given options`,
        run: async () => strictEqual(typeof (await build()).admit, 'function', 'the factory returns an AdmissionController'),
      },
      {
        name: `${label}: answers well-formed verdicts`,
        run: async () => {
          const controller = await build();
          for (const sample of samples) assertVerdict(await judge(controller, sample), describe(sample));
        },
      },
      {
        name: `${label}: allows what it must allow`,
        run: async () => {
          const controller = await build();
          for (const sample of options.allows ?? []) {
            const verdict = await judge(controller, sample);
            ok(verdict.allowed, `${describe(sample)} was refused: ${JSON.stringify(verdict)}`);
          }
        },
      },
      {
        name: `${label}: refuses what it must refuse, naming the policy, the rule and the field`,
        run: async () => {
          const controller = await build();
          for (const sample of options.refuses ?? []) {
            const verdict = await judge(controller, sample);
            if (verdict.allowed) fail(`${describe(sample)} was allowed`);
            assertVerdict(verdict, describe(sample));
          }
        },
      },
      {
        name: `${label}: leaves the config it is given untouched`,
        run: async () => {
          const controller = await build();
          for (const sample of samples) {
            const config = deepFreeze(structuredClone(sample.config));
            const before = JSON.stringify(config);
            // a frozen config makes a write throw in strict mode; a copy that changes is caught below
            await controller.admit(deepFreeze(request(sample, config)));
            strictEqual(JSON.stringify(config), before, `${describe(sample)} was changed`);
          }
        },
      },
      {
        name: `${label}: answers anonymous callers`,
        run: async () => {
          const controller = await build();
          for (const sample of samples)
            assertVerdict(await judge(controller, { ...sample, caller: ANONYMOUS }), `anonymous ${describe(sample)}`);
        },
      },
      {
        name: `${label}: is deterministic`,
        run: async () => {
          const controller = await build();
          for (const sample of samples) deepStrictEqual(await judge(controller, sample), await judge(controller, sample), describe(sample));
        },
      },
      {
        name: `${label}: amends into plain JSON objects that it then allows`,
        run: async () => {
          const controller = await build();
          for (const sample of samples) {
            const given = request(sample);
            const verdict = await controller.admit(given);
            if (!verdict.allowed || verdict.amended === undefined) continue;
            const amended = verdict.amended;
            notStrictEqual(amended, given.config, `${describe(sample)}: amended is a new object, not the given config`);
            deepStrictEqual(JSON.parse(JSON.stringify(amended)), amended, `${describe(sample)}: amended is plain JSON`);
            if (given.action === 'container.create')
              ok(typeof amended.Image === 'string' && amended.Image !== '', `${describe(sample)}: amended keeps an Image`);
            const again = await controller.admit({ ...given, config: amended });
            ok(again.allowed, `${describe(sample)}: its own amendment is refused: ${JSON.stringify(again)}`);
          }
        },
      },
      {
        name: `${label}: refuses invalid options with CONFIG_INVALID`,
        run: async () => {
          for (const invalid of options.invalidOptions ?? []) {
            try {
              await factory({ options: invalid, configDir: process.cwd(), logger: noopLogger });
            } catch (error) {
              ok(
                isSwarmError(error, ErrorCodes.CONFIG_INVALID),
                `${JSON.stringify(invalid)}: ${String(error)} is not a CONFIG_INVALID SwarmError`,
              );
              continue;
            }
            fail(`options ${JSON.stringify(invalid)} were accepted`);
          }
        },
      },
    ],
    tester,
  );
}
