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

/** The same call on every healthy engine; fails with the first engine error. */
export async function callEveryEngine(api: ApiContext, method: string, path: string): Promise<Answer[]> {
  const nodes = healthyNodes(api);
  return Promise.all(
    nodes.map(async (node) => {
      const { status, body } = await engineJson(node.endpoint()!, method, path, undefined, 120_000);
      if (status >= 300) throw new HttpError(status, `${node.name}: ${engineErrorMessage(body)}`);
      return typeof body === 'object' && body !== null ? (body as Answer) : {};
    }),
  );
}
