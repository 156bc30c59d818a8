import type { Node } from '@swarm/plugin-sdk';
import { imageCopies } from '../access/scoped-images.js';
import { nodeEngine, type LookupScope } from './lookups.js';

/** The `ONBUILD` triggers of a build's base images; `unknown` when an engine holding one could not say. */
export interface BaseTriggers {
  readonly lines: readonly string[];
  readonly unknown: boolean;
}

/**
 * The `ONBUILD` triggers of the images a classic build starts from, which the engine runs in that
 * build, as the engines holding them keep them (each image once: an ID names the same config
 * everywhere). A base no engine holds yet is pulled by the build, with triggers nobody here can read.
 */
export function baseTriggers(scope: Pick<LookupScope, 'api'>, references: readonly string[]): Promise<BaseTriggers> {
  // a build asks twice (its admission's fetches, a scoped caller's bases): the engines are asked once
  const key = references.join('\n');
  let known = asked.get(scope);
  if (!known) asked.set(scope, (known = new Map()));
  let triggers = known.get(key);
  if (!triggers) known.set(key, (triggers = readTriggers(scope, references)));
  return triggers;
}

/** The answers of one request's scope (its RequestContext), by the references asked about. */
const asked = new WeakMap<object, Map<string, Promise<BaseTriggers>>>();

async function readTriggers(scope: Pick<LookupScope, 'api'>, references: readonly string[]): Promise<BaseTriggers> {
  const holders = new Map<string, Node>();
  for (const reference of references) {
    for (const { node, image } of imageCopies(scope.api.cluster.nodes(), reference))
      if (!holders.has(image.id)) holders.set(image.id, node);
  }
  let unknown = false;
  const lines = await Promise.all(
    [...holders].map(async ([id, node]) => {
      try {
        const inspected = await nodeEngine(scope.api, node).json<{ Config?: { OnBuild?: unknown } }>({ path: `/images/${id}/json` });
        const onBuild = inspected.Config?.OnBuild;
        return Array.isArray(onBuild) ? onBuild.filter((line): line is string => typeof line === 'string') : [];
      } catch {
        unknown = true;
        return [];
      }
    }),
  );
  return { lines: lines.flat(), unknown };
}
