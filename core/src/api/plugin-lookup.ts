import type { Node } from '@swarm/plugin-sdk';
import type { ApiContext } from './context.js';
import { engineErrorMessage } from './engine/endpoint-request.js';
import { callNodes } from './fan-out.js';
import { imagePath } from './handlers/images.js';
import { healthyNodes } from './lookups.js';
import { HttpError } from './responses.js';

/** A plugin installed on one node: the name its engine knows it by, and the engine's inspect. */
export interface PluginCopy {
  node: Node;
  name: string;
  inspect: Record<string, unknown>;
}

/** The engine path of a plugin operation (`/plugins/{name}/{operation}`). */
export function pluginPath(versionPrefix: string, name: string, operation: string): string {
  return `${versionPrefix}/plugins/${imagePath(name)}${operation === '' ? '' : `/${operation}`}`;
}

/**
 * Where a plugin reference points, as for containers: `node/name` is that node's copy; a bare
 * name or ID is every healthy node holding it (sorted by node name). None: the engine's 404.
 */
export async function findPluginCopies(api: ApiContext, reference: string, versionPrefix: string): Promise<PluginCopy[]> {
  const nodes = healthyNodes(api).sort((a, b) => a.name.localeCompare(b.name));
  if (nodes.length === 0) throw new HttpError(500, 'No healthy node available in the cluster');
  const slash = reference.indexOf('/');
  const named = slash > 0 ? nodes.find((node) => node.name === reference.slice(0, slash)) : undefined;
  const name = named ? reference.slice(slash + 1) : reference;
  const answers = await callNodes(named ? [named] : nodes, 'GET', pluginPath(versionPrefix, name, 'json'));
  const found = answers.filter((answer) => answer.status === 200 && typeof answer.body === 'object' && answer.body !== null);
  if (found.length > 0) return found.map((answer) => ({ node: answer.node, name, inspect: answer.body as Record<string, unknown> }));
  const failure = answers.find((answer) => answer.status !== 404) ?? answers[0]!;
  throw new HttpError(failure.status === 200 ? 502 : failure.status, engineErrorMessage(failure.body));
}
