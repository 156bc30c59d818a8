import { isSwarmError, type Node, type SwarmError } from '@swarm/plugin-sdk';
import type { ApiContext } from './context.js';
import { healthyNodes, nodeEngine } from './lookups.js';
import { describeError } from '../http/responses.js';
import type { Answer } from './answers.js';
import { CoreErrors } from '../errors.js';

/** Engines fanned out to may take this long (prunes, plugin installs). */
const FAN_OUT_TIMEOUT_MS = 120_000;

/** One engine's answer to a fanned-out call: its status, and its body or error message. */
export interface NodeAnswer {
  node: Node;
  status: number;
  body: unknown;
  /** The engine's (or the connection's) error, when the call failed. */
  message?: string;
}

/** The same JSON call on each of `nodes` at once, every answer kept (errors included). */
export function callNodes(
  api: ApiContext,
  nodes: readonly Node[],
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  body?: unknown,
): Promise<NodeAnswer[]> {
  return Promise.all(
    nodes.map(async (node): Promise<NodeAnswer> => {
      try {
        return { node, ...(await nodeEngine(api, node).answer({ method, path, body, timeoutMs: FAN_OUT_TIMEOUT_MS })) };
      } catch (error) {
        const status = isSwarmError(error) ? error.httpStatus : 500;
        return { node, status, body: undefined, message: error instanceof Error ? error.message : String(error) };
      }
    }),
  );
}

interface NodeFailure {
  node: Node;
  status: number;
  message: string;
}

/**
 * Swarm classic's error when an operation failed on some nodes: one `node: message` line per
 * failed node (what succeeded elsewhere stays done), with the first failure's status.
 */
function nodesFailed(failures: readonly NodeFailure[]): SwarmError {
  const lines = failures.map((failure) => ({ node: failure.node.name, message: failure.message }));
  return CoreErrors.nodesFailed({ failures: lines }, { httpStatus: failures[0]!.status });
}

/** Fails when any engine answered with an error, naming each failed node. */
export function throwFailures(answers: readonly NodeAnswer[]): void {
  const failures = answers.flatMap((answer) =>
    answer.message === undefined ? [] : [{ node: answer.node, status: answer.status, message: answer.message }],
  );
  if (failures.length > 0) throw nodesFailed(failures);
}

/** `operation` on every item at once; when some fail, the others are still done and the error names each failed node. */
export async function onEveryCopy<T>(items: readonly T[], nodeOf: (item: T) => Node, operation: (item: T) => Promise<void>): Promise<void> {
  const settled = await Promise.allSettled(items.map(operation));
  const failures: NodeFailure[] = [];
  settled.forEach((outcome, index) => {
    if (outcome.status === 'fulfilled') return;
    const { status, message } = describeError(outcome.reason);
    failures.push({ node: nodeOf(items[index]!), status, message });
  });
  if (failures.length > 0) throw nodesFailed(failures);
}

/** The same call on every healthy engine; fails when any engine failed. */
export async function callEveryEngine(api: ApiContext, method: 'GET' | 'POST', path: string): Promise<Answer[]> {
  const answers = await callNodes(api, healthyNodes(api), method, path);
  throwFailures(answers);
  return answers.map(({ body }) => (typeof body === 'object' && body !== null ? (body as Answer) : {}));
}
