import { deepStrictEqual, fail, ok, strictEqual } from 'node:assert/strict';
import {
  isNoOpinion,
  type AccessObject,
  type AccessRequest,
  type Authorizer,
  type AuthorizerFactory,
  type AuthzDecision,
  type Caller,
  type Visibility,
} from '../access.js';
import { ErrorCodes, isSwarmError } from '../errors.js';
import { ANONYMOUS_CALLER, authzRequest, ownedObject, testCaller } from './authz-request.js';
import { runAsyncChecks, type Tester } from './checks.js';
import { noopLogger } from './noop-logger.js';

export { ANONYMOUS_CALLER, authzRequest, ownedObject, testCaller } from './authz-request.js';

export interface AuthzConformanceOptions {
  /** The options of the config entry (`authz: [['name', options]]`); default `{}`. */
  readonly options?: Readonly<Record<string, unknown>>;
  /** Options the factory must refuse with a CONFIG_INVALID SwarmError that says what is wrong. */
  readonly invalidOptions?: readonly Readonly<Record<string, unknown>>[];
  /** Callers to ask about, the anonymous one always among them; default four users of teams a and b and admins. */
  readonly callers?: readonly Caller[];
  /** Objects to ask about; default owned, team, unlabelled and shared containers, images, networks and volumes. */
  readonly objects?: readonly AccessObject[];
  /** Actions to ask about, besides unknown ones; default the host's catalogue. */
  readonly actions?: readonly string[];
  /**
   * How `visibility` must agree with `<kind>.inspect`: `both` (default), an object is seen
   * exactly when its inspect is allowed; `hidden-refused`, only that a hidden object's inspect is
   * refused (for an authorizer that shows more than it lets inspect).
   */
  readonly visibilityMatchesInspect?: 'both' | 'hidden-refused';
  /** How long 10,000 `sees` calls may take for one caller. Default 50 ms (a loaded CI machine). */
  readonly seesBudgetMs?: number;
}

const verbs = (kind: string, list: string) => list.split(' ').map((verb) => `${kind}.${verb}`);

/** The host's action catalogue (the core README lists it), as an authorizer is asked. */
export const ACCESS_ACTIONS: readonly string[] = [
  ...verbs('container', 'create inspect list start stop restart kill pause unpause remove rename update logs attach exec'),
  ...verbs('container', 'stats top changes export archive archive.write wait resize commit prune'),
  'exec.inspect',
  ...verbs('image', 'list inspect pull import push build remove tag load save search history prune'),
  ...verbs('network', 'list inspect create remove connect disconnect prune'),
  ...verbs('volume', 'list inspect create remove prune'),
  ...verbs('system', 'info version ping events df auth'),
  ...verbs('plugin', 'list inspect install remove enable disable set push upgrade'),
  ...verbs('swarm', 'explain metrics health web web.action'),
];

/** Actions no catalogue has (as those a newer host adds): an authorizer answers them, never throws, and never allows them to a caller it refuses something. */
const UNKNOWN_ACTIONS = [
  'unknown',
  'container.unknown',
  'container.frobnicate',
  'teleport.everything',
  '',
  '.',
  'container.',
  'CONTAINER.REMOVE',
];

const SAMPLE_CALLERS: readonly Caller[] = [
  testCaller('alice', ['team-a']),
  testCaller('bob', ['team-b', 'system:authenticated'], 'token'),
  testCaller('carol', []),
  testCaller('root', ['admins']),
];

const SAMPLE_OBJECTS: readonly AccessObject[] = [
  ownedObject('container', 'alice-web', 'alice', 'team-a'),
  ownedObject('container', 'bob-db', 'bob', 'team-b', 'node2'),
  ownedObject('container', 'old', undefined, undefined),
  ownedObject('exec', 'alice-exec', 'alice', 'team-a'),
  ownedObject('image', 'busybox:latest'),
  ownedObject('network', 'node1/bridge'),
  ownedObject('network', 'team-a-net', 'alice', 'team-a'),
  ownedObject('volume', 'bob-data', 'bob', 'team-b'),
  ownedObject('volume', 'orphan'),
  ownedObject('node', 'node1'),
];

const INSPECT_ACTIONS: Readonly<Partial<Record<AccessObject['kind'], string>>> = {
  container: 'container.inspect',
  exec: 'exec.inspect',
  image: 'image.inspect',
  network: 'network.inspect',
  volume: 'volume.inspect',
};

function assertDecision(decision: AuthzDecision, asked: string): void {
  ok(typeof decision === 'object' && decision !== null, `${asked}: a decision is an object, got ${String(decision)}`);
  if (isNoOpinion(decision)) {
    ok(decision.reason === undefined || typeof decision.reason === 'string', `${asked}: a no-opinion's reason is a string when given`);
    return;
  }
  ok(typeof decision.allowed === 'boolean', `${asked}: allowed is a boolean, or the answer is NO_OPINION`);
  if (!decision.allowed) {
    ok(typeof decision.reason === 'string' && decision.reason.trim().length > 0, `${asked}: a denial carries a reason for the client`);
    ok(
      decision.rule === undefined || (typeof decision.rule === 'string' && decision.rule.length > 0),
      `${asked}: rule is a non-empty string when given`,
    );
    return;
  }
  if (decision.placement === undefined) return;
  ok(Array.isArray(decision.placement), `${asked}: placement is a list`);
  for (const constraint of decision.placement) {
    ok(
      typeof constraint.expression === 'string' && /(==|!=)/.test(constraint.expression),
      `${asked}: placement expression ${JSON.stringify(constraint.expression)} is key==value or key!=value`,
    );
    ok(typeof constraint.rule === 'string' && constraint.rule.length > 0, `${asked}: a placement constraint names its rule`);
  }
}

// Byte arrays (the wire body) cannot be frozen; the JSON comparison after still catches a change.
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !ArrayBuffer.isView(value) && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

/** Every question the suite asks: each caller, each action with and without each object it may be about. */
function questions(callers: readonly Caller[], actions: readonly string[], objects: readonly AccessObject[]): AccessRequest[] {
  return callers.flatMap((caller) =>
    actions.flatMap((action) => {
      const kind = action.split('.')[0];
      const about = objects.filter((object) => object.kind === kind);
      const body = action.endsWith('.create') || action === 'container.update' ? { Image: 'busybox', Labels: { app: 'web' } } : undefined;
      return [authzRequest(caller, action, undefined, body), ...about.map((object) => authzRequest(caller, action, object, body))];
    }),
  );
}

const describeRequest = (request: AccessRequest) =>
  `${request.caller.user} ${JSON.stringify(request.action)}${request.object ? ` on ${request.object.kind} ${request.object.name ?? request.object.id}` : ''}`;

/**
 * Checks every authorizer must pass: it is built from its options (and refuses bad ones with a
 * coded error), answers every caller (the anonymous one too) and every action (unknown ones too)
 * with a well-formed decision (allow, deny or no opinion) and never a throw, refuses with a
 * reason, never allows an unknown action to a caller it refuses something (it has no opinion on
 * it, or refuses it), hides exactly what it refuses to inspect, answers the same question the same way,
 * changes no request, and has a `sees` fast enough to run per container of a `docker ps`. With a
 * tester (vitest's `{ it }`) one test per check; without, they run now and the promise rejects on
 * the first failure.
 */
export function authzConformance(factory: AuthorizerFactory, options: AuthzConformanceOptions = {}, tester?: Tester): Promise<void> {
  const callers = [ANONYMOUS_CALLER, ...(options.callers ?? SAMPLE_CALLERS)];
  const objects = options.objects ?? SAMPLE_OBJECTS;
  const actions = options.actions ?? ACCESS_ACTIONS;
  const settings = (given: Readonly<Record<string, unknown>>) => ({ options: given, configDir: process.cwd(), logger: noopLogger });
  let built: Authorizer | undefined;
  const authorizer = async (): Promise<Authorizer> => (built ??= await factory(settings(options.options ?? {})));
  const ask = async (request: AccessRequest): Promise<AuthzDecision> => {
    try {
      return await (await authorizer()).authorize(deepFreeze(request));
    } catch (error) {
      return fail(
        `authorize threw for ${describeRequest(request)}: ${String(error)} (requests are frozen: an authorizer may not change them)`,
      );
    }
  };
  const view = async (caller: Caller): Promise<Visibility | undefined> => {
    const found = await authorizer();
    return found.visibility === undefined ? undefined : await found.visibility(caller);
  };

  return runAsyncChecks(
    [
      {
        name: 'authz: the factory builds an authorizer from the options',
        run: async () => {
          const found = await authorizer();
          ok(typeof found.authorize === 'function', 'authorize is a function');
          ok(found.visibility === undefined || typeof found.visibility === 'function', 'visibility is a function or absent');
          ok(found.review === undefined || typeof found.review === 'function', 'review is a function or absent');
        },
      },
      {
        name: 'authz: refuses invalid options with CONFIG_INVALID',
        run: async () => {
          for (const invalid of options.invalidOptions ?? []) {
            try {
              await factory(settings(invalid));
            } catch (error) {
              ok(
                isSwarmError(error, ErrorCodes.CONFIG_INVALID),
                `${JSON.stringify(invalid)}: ${String(error)} is not a CONFIG_INVALID SwarmError`,
              );
              ok((error as Error).message.length > 0, `${JSON.stringify(invalid)}: the error says what is wrong`);
              continue;
            }
            fail(`options ${JSON.stringify(invalid)} were accepted`);
          }
        },
      },
      {
        name: 'authz: answers every caller, action and object with a well-formed decision; denials carry a reason',
        run: async () => {
          for (const request of questions(callers, actions, objects)) assertDecision(await ask(request), describeRequest(request));
        },
      },
      {
        name: 'authz: answers unknown actions without throwing, with no opinion or a refusal to a caller it refuses something',
        run: async () => {
          for (const caller of callers) {
            const known = await Promise.all(actions.map((action) => ask(authzRequest(caller, action))));
            const refusedSomething = known.some((decision) => decision.allowed === false);
            for (const request of questions([caller], UNKNOWN_ACTIONS, objects)) {
              const decision = await ask(request);
              assertDecision(decision, describeRequest(request));
              // No opinion is the answer for an action it does not know: the host refuses what no authorizer allows.
              ok(
                !(refusedSomething && decision.allowed === true),
                `${describeRequest(request)}: allowed an unknown action to a caller refused a known one (answer NO_OPINION or refuse)`,
              );
            }
          }
        },
      },
      {
        name: 'authz: answers the anonymous caller, and its visibility',
        run: async () => {
          for (const action of actions) assertDecision(await ask(authzRequest(ANONYMOUS_CALLER, action)), `anonymous ${action}`);
          const visibility = await view(ANONYMOUS_CALLER);
          for (const object of objects)
            ok(typeof (visibility?.sees(object) ?? true) === 'boolean', `anonymous sees ${object.kind} ${object.name}: a boolean`);
        },
      },
      {
        name: 'authz: visibility agrees with inspect (what a caller may not see does not exist for them)',
        run: async () => {
          for (const caller of callers) {
            const visibility = await view(caller);
            for (const object of objects) {
              const inspect = INSPECT_ACTIONS[object.kind];
              if (inspect === undefined) continue;
              const seen = visibility?.sees(object) ?? true;
              // With no opinion on an inspect, the authorizer has none on seeing the object either.
              const { allowed } = await ask(authzRequest(caller, inspect, object));
              const asked = `${caller.user} ${inspect} ${object.name}`;
              ok(seen || allowed !== true, `${asked}: allowed, but the object is hidden from them`);
              if (options.visibilityMatchesInspect !== 'hidden-refused')
                ok(!seen || allowed !== false, `${asked}: refused, but the object is visible to them (a 403 where a 404 belongs)`);
            }
          }
        },
      },
      {
        name: 'authz: answers the same question the same way, and changes no request',
        run: async () => {
          for (const request of questions(callers, actions, objects)) {
            const before = JSON.stringify(request);
            const first = await ask(request);
            deepStrictEqual(await ask(request), first, `${describeRequest(request)}: asked twice, answered differently`);
            strictEqual(JSON.stringify(request), before, `${describeRequest(request)}: the request was changed`);
          }
          for (const caller of callers) {
            const [one, two] = [await view(caller), await view(caller)];
            for (const object of objects)
              strictEqual(one?.sees(object), two?.sees(object), `${caller.user} sees ${object.name}: differs between two visibilities`);
          }
        },
      },
      {
        name: 'authz: review, when offered, answers well-formed decisions',
        run: async () => {
          const found = await authorizer();
          if (found.review === undefined) return;
          const response = { statusCode: 200, headers: { 'content-type': 'application/json' }, body: new TextEncoder().encode('[]') };
          for (const request of questions(callers, ['container.list', 'container.inspect'], objects)) {
            assertDecision(await found.review(request, response), `review of ${describeRequest(request)}`);
          }
        },
      },
      {
        name: 'authz: sees answers 10,000 objects quickly (it runs per container of a docker ps)',
        run: async () => {
          const budget = options.seesBudgetMs ?? 50;
          for (const caller of callers) {
            const visibility = await view(caller);
            if (visibility === undefined) continue;
            const started = performance.now();
            for (let i = 0; i < 10_000; i++) visibility.sees(objects[i % objects.length]!);
            const took = performance.now() - started;
            ok(
              took < budget,
              `${caller.user}: 10,000 sees took ${took.toFixed(1)} ms, over ${budget} ms: work it out once in visibility(caller)`,
            );
          }
        },
      },
    ],
    tester,
  );
}
