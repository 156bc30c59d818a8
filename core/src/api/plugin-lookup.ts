import type { Node } from '@swarm/plugin-sdk';
import type { ApiContext } from './context.js';
import { callNodes, type NodeAnswer } from './fan-out.js';
import { imagePath } from './handlers/images.js';
import { pluginNodes } from './lookups.js';
import { CoreErrors } from '../errors.js';

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

/** The nodes that answered a plugin inspect with the plugin. */
function holders(answers: readonly NodeAnswer[], name: string): PluginCopy[] {
  return answers
    .filter((answer) => answer.message === undefined && typeof answer.body === 'object' && answer.body !== null)
    .map((answer) => ({ node: answer.node, name, inspect: answer.body as Record<string, unknown> }));
}

/**
 * Where a plugin reference points (Swarm classic's rule for per-node objects): every healthy
 * node holding the name or ID (sorted by node name); when none does and the reference is
 * `node/name`, that node's copy. None: the engine's 404.
 */
export async function findPluginCopies(api: ApiContext, reference: string, versionPrefix: string): Promise<PluginCopy[]> {
  const nodes = pluginNodes(api).sort((a, b) => a.name.localeCompare(b.name));
  if (nodes.length === 0) throw CoreErrors.noHealthyNode();
  let answers = await callNodes(api, nodes, 'GET', pluginPath(versionPrefix, reference, 'json'));
  const everywhere = holders(answers, reference);
  if (everywhere.length > 0) return everywhere;
  const slash = reference.indexOf('/');
  const named = slash > 0 ? nodes.find((node) => node.name === reference.slice(0, slash)) : undefined;
  if (named) {
    const name = reference.slice(slash + 1);
    answers = await callNodes(api, [named], 'GET', pluginPath(versionPrefix, name, 'json'));
    const copy = holders(answers, name);
    if (copy.length > 0) return copy;
  }
  const failure = answers.find((answer) => answer.status !== 404) ?? answers[0]!;
  if (failure.message === undefined)
    throw CoreErrors.engineAnsweredNoObject({ node: failure.node.name, what: `the inspect of plugin ${reference}` });
  throw CoreErrors.enginesRefused({ message: failure.message }, { httpStatus: failure.status });
}
