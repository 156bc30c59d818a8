import type { Node } from '@swarm/plugin-sdk';
import type { ApiContext } from './context.js';
import { engineErrorMessage, engineJson } from './engine/endpoint-request.js';
import { healthyNodes } from './lookups.js';
import { describeError, HttpError } from './responses.js';

type Answer = Record<string, unknown>;

/** Lists are concatenated and numbers added: how prune reports and `system df` combine. */
export function mergeAnswers(answers: readonly Answer[]): Answer {
  const merged: Answer = {};
  for (const answer of answers) {
    for (const [key, value] of Object.entries(answer)) {
      const current = merged[key];
      if (Array.isArray(value)) merged[key] = [...(Array.isArray(current) ? current : []), ...value];
      else if (typeof value === 'number') merged[key] = (typeof current === 'number' ? current : 0) + value;
      else if (current === undefined || current === null) merged[key] = value;
    }
  }
  return merged;
}

export interface NodeAnswer {
  node: Node;
  status: number;
  body: unknown;
}

/** The same JSON call on each of `nodes` at once, every answer kept (errors included). */
export function callNodes(nodes: readonly Node[], method: string, path: string, body?: unknown): Promise<NodeAnswer[]> {
  return Promise.all(nodes.map(async (node) => ({ node, ...(await engineJson(node.endpoint()!, method, path, body, 120_000)) })));
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
function nodesFailed(failures: readonly NodeFailure[]): HttpError {
  return new HttpError(failures[0]!.status, failures.map((failure) => `${failure.node.name}: ${failure.message}`).join('\n'));
}

/** Fails when any engine answered with an error, naming each failed node. */
export function throwFailures(answers: readonly NodeAnswer[]): void {
  const failures = answers
    .filter((answer) => answer.status >= 300)
    .map((answer) => ({ node: answer.node, status: answer.status, message: engineErrorMessage(answer.body) }));
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
export async function callEveryEngine(api: ApiContext, method: string, path: string): Promise<Answer[]> {
  const answers = await callNodes(healthyNodes(api), method, path);
  throwFailures(answers);
  return answers.map(({ body }) => (typeof body === 'object' && body !== null ? (body as Answer) : {}));
}
