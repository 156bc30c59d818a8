import type { Node } from '@swarm/plugin-sdk';
import type { ApiContext } from './context.js';
import { engineErrorMessage, engineJson } from './engine/endpoint-request.js';
import { healthyNodes } from './lookups.js';
import { HttpError } from './responses.js';

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

/** Fails with the first engine error, named after its node, as Docker's error format. */
export function throwFirstFailure(answers: readonly NodeAnswer[]): void {
  const failed = answers.find((answer) => answer.status >= 300);
  if (failed) throw new HttpError(failed.status, `${failed.node.name}: ${engineErrorMessage(failed.body)}`);
}

/** The same call on every healthy engine; fails with the first engine error. */
export async function callEveryEngine(api: ApiContext, method: string, path: string): Promise<Answer[]> {
  const answers = await callNodes(healthyNodes(api), method, path);
  throwFirstFailure(answers);
  return answers.map(({ body }) => (typeof body === 'object' && body !== null ? (body as Answer) : {}));
}
