import type { ContainerConfig } from '@swarm/plugin-sdk/docker';
import { queryString, type RouteHandler } from '../context.js';
import { forwardToEngine } from '../../forwarding/index.js';
import { anyHealthyEngine, nodeEngine } from '../lookups.js';
import { buildkitBuildsOf } from '../buildkit/builds.js';
import { bindingFor, placeBuild, recordBuilt } from './buildkit.js';
import { admitBuild } from '../access-create.js';
import { madeImageLabels } from '../image-ownership.js';
import { judgedBuildBases, refuseTakenImageName } from '../scoped-images.js';
import { CoreErrors } from '../../errors.js';

const SWARM_DIRECTIVE = /^(constraint|affinity|whitelist|reschedule):/;

function parseJsonMap(raw: string | null, name: string): Record<string, string> {
  if (raw === null || raw === '') return {};
  try {
    const parsed: unknown = JSON.parse(raw);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new TypeError('expected an object');
    return Object.fromEntries(
      Object.entries(parsed as Record<string, unknown>).map(([key, value]) => [key, value === null ? '' : String(value)]),
    );
  } catch (error) {
    throw CoreErrors.invalidParameter({ name, reason: (error as Error).message });
  }
}

function numberParam(raw: string | null): number | undefined {
  if (raw === null || raw === '') return undefined;
  const value = Number(raw);
  return Number.isFinite(value) && value > 0 ? value : undefined;
}

/**
 * POST /build: the scheduler picks the node (build args such as `constraint:node==node1` steer
 * it, as in Swarm classic), then the build context streams to that engine. The swarm directives
 * are taken out of the build args so the engine does not warn about unused ones.
 */
export const build: RouteHandler = async (ctx) => {
  // Judged before placement: a refused build is not scheduled.
  const admitted = await admitBuild(ctx);
  for (const name of ctx.query.getAll('t')) refuseTakenImageName(ctx, name, 'owned');
  const buildArgs = parseJsonMap(ctx.query.get('buildargs'), 'buildargs');
  const labels = parseJsonMap(ctx.query.get('labels'), 'labels');
  const config: ContainerConfig = {
    Image: ctx.query.get('t') ?? '',
    Env: Object.entries(buildArgs).map(([key, value]) => `${key}=${value}`),
    Labels: labels,
    HostConfig: { CpuShares: numberParam(ctx.query.get('cpushares')), Memory: numberParam(ctx.query.get('memory')) },
  };
  // BuildKit's version=2: the build runs on the engine of its session (`/session`), placed by whichever came first.
  const builds = buildkitBuildsOf(ctx.api);
  const sessionId = ctx.query.get('version') === '2' ? (ctx.query.get('session') ?? '') : '';
  const known = sessionId !== '' ? builds.sessions.get(sessionId) : undefined;
  if (known && known.caller !== bindingFor(ctx, known.node).caller) {
    throw CoreErrors.buildkitNotJudged({ what: "a build naming another caller's session", instead: 'start a session of your own' });
  }
  const node = known?.node ?? (await placeBuild(ctx, config));
  if (sessionId !== '') builds.sessions.set(sessionId, bindingFor(ctx, node));
  const buildId = ctx.query.get('buildid') ?? '';
  if (buildId !== '') builds.refs.set(buildId, bindingFor(ctx, node));
  // its Dockerfile comes over the session, where its ADD URLs are judged with these build args
  if (sessionId !== '') builds.addBuildArgs({ session: sessionId }, buildArgs);
  const query = new URLSearchParams(admitted);
  const owned = madeImageLabels(ctx, labels);
  if (owned) query.set('labels', JSON.stringify(owned));
  await judgedBuildBases(ctx, ctx.req, query);
  const engineArgs = Object.fromEntries(Object.entries(buildArgs).filter(([key]) => !SWARM_DIRECTIVE.test(key)));
  if (query.has('buildargs')) query.set('buildargs', JSON.stringify(engineArgs));
  await forwardToEngine(nodeEngine(ctx.api, node), `${ctx.versionPrefix}/build${queryString(query)}`, ctx, { kind: 'call' });
  // Engines before 23.0 announce a BuildKit build's image with no event.
  if (sessionId !== '') recordBuilt(ctx, node);
};

/** POST /build/cancel?id=: to the engine running that build (the one its `buildid` was placed on). */
export const cancelBuild: RouteHandler = async (ctx) => {
  const id = ctx.query.get('id') ?? '';
  const node = buildkitBuildsOf(ctx.api).refs.get(id)?.node;
  const engine = node ? nodeEngine(ctx.api, node) : anyHealthyEngine(ctx.api);
  await forwardToEngine(engine, `${ctx.versionPrefix}/build/cancel${queryString(ctx.query)}`, ctx, { kind: 'call' });
};
