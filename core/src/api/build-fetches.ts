import type { IncomingMessage } from 'node:http';
import type { EngineFetch } from '@swarm/plugin-sdk/access';
import { changesFetches, dockerfileFetches, type DockerfileFetches } from '../access/dockerfile-fetches.js';
import { dockerfileBases } from '../access/dockerfile-images.js';
import { baseTriggers } from './base-triggers.js';
import { buildContext, contextDockerfile } from './build-context.js';
import type { LookupScope } from './lookups.js';
import type { BuildQuestion } from './build-query.js';

/*
 * Every URL the engine would fetch for a classic build, for the admission controllers: `remote`'s,
 * then the `ADD` sources of the Dockerfile in the context the client sends (dockerfile-fetches.ts).
 * A context the engine fetches (`remote`) brings its own Dockerfile, and a BuildKit build's comes
 * over its session: neither is read here.
 */

/** Why a source is unresolved, for the refusal (a BuildKit build's Dockerfile too: buildkit/session-dockerfile.ts). */
export const UNRESOLVED =
  "holds a variable the manager cannot resolve (one no ENV of the Dockerfile sets may come from the base image's ENV; " +
  '${X/a/b}, ${X#a} and ${X%a} are not followed; an ONBUILD ADD is expanded in the builds on its image)';

/** `buildargs` as the engine gets it (build.ts sends a null value on as ''). */
function buildArgsOf(query: URLSearchParams): Record<string, string> {
  try {
    const parsed: unknown = JSON.parse(query.get('buildargs') || '{}');
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return {};
    return Object.fromEntries(Object.entries(parsed).map(([key, value]) => [key, value === null ? '' : String(value)]));
  } catch {
    // the build handler refuses it before the engine sees it
    return {};
  }
}

function asEngineFetches({ urls, unresolved }: DockerfileFetches): EngineFetch[] {
  return [
    ...urls.map((url): EngineFetch => ({ from: 'ADD', url })),
    ...unresolved.map((source): EngineFetch => ({ from: 'ADD', url: source, unresolved: `${source} ${UNRESOLVED}` })),
  ];
}

/**
 * What the builds on an image a commit or import makes would fetch: the `ONBUILD ADD`s of its
 * `changes` and of the `OnBuild` triggers it gets as they are (dockerfile-fetches.ts `changesFetches`).
 */
export function triggerFetches(changes: readonly string[], triggers: readonly string[] = []): EngineFetch[] {
  return asEngineFetches(changesFetches(changes, triggers));
}

/**
 * The fetches of the Dockerfile in a classic build's context, and of its base images' `ONBUILD ADD`
 * triggers, which the engine runs in this build (an image pulled from a registry carries its own,
 * judged nowhere else): the context is read whole and kept for the engine.
 */
async function dockerfileFetchesOf(scope: Pick<LookupScope, 'api'>, req: IncomingMessage, query: URLSearchParams): Promise<EngineFetch[]> {
  const reading = contextDockerfile(await buildContext(req), query);
  if ('problem' in reading)
    return [{ from: 'ADD', url: '', unresolved: `the Dockerfile cannot be read as the engine reads it: ${reading.problem}` }];
  return [...asEngineFetches(dockerfileFetches(reading.text, buildArgsOf(query))), ...(await baseTriggerFetches(scope, reading.text))];
}

/**
 * What the `ONBUILD ADD` triggers of a Dockerfile's base images make the engine fetch in its build,
 * as the engines holding those images keep them (a BuildKit build's too: buildkit/session-dockerfile.ts).
 */
export async function baseTriggerFetches(scope: Pick<LookupScope, 'api'>, dockerfile: string): Promise<EngineFetch[]> {
  const triggers = await baseTriggers(scope, dockerfileBases(dockerfile).images);
  const unknown: EngineFetch = { from: 'ADD', url: '', unresolved: "a base image's ONBUILD triggers could not be read from its engine" };
  return [...triggerFetches([], triggers.lines), ...(triggers.unknown ? [unknown] : [])];
}

/** What a build makes the engine fetch: `remote`, and when `readDockerfile`, its Dockerfile's and its bases' triggers' `ADD` URLs. */
export async function buildFetches(
  scope: Pick<LookupScope, 'api'>,
  req: IncomingMessage,
  query: URLSearchParams,
  question: BuildQuestion,
  readDockerfile: boolean,
): Promise<EngineFetch[]> {
  const fetches: EngineFetch[] = question.source ? [{ from: question.source.parameter, url: question.source.url }] : [];
  const classic = query.get('version') !== '2' && (query.get('remote') ?? '') === '';
  if (readDockerfile && classic) fetches.push(...(await dockerfileFetchesOf(scope, req, query)));
  return fetches;
}
