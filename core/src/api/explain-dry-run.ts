import { ErrorCodes, isSwarmError, type PlacementExplanation } from '@swarm/plugin-sdk';
import type { AccessRequest } from '@swarm/plugin-sdk/access';
import type { ContainerConfig } from '@swarm/plugin-sdk/docker';
import type { RequestAccess } from '../access/request-access.js';
import { CoreErrors } from '../errors.js';
import { admitCreateConfig, checkCreateScope, placedCreate } from './access-create.js';
import { judgedBody } from './access-gate.js';
import type { RequestContext } from './context.js';

/**
 * The question a `docker run` of this config puts to the authorizers: `container.create` with its
 * body, on the wire as the create's own request (a Docker AuthZ plugin reads the URI and body).
 */
function createQuestion(ctx: RequestContext, access: RequestAccess, config: ContainerConfig, name: string | undefined): AccessRequest {
  const raw = Buffer.from(JSON.stringify(config));
  const asked = access.question?.wire;
  const headers: Record<string, string | string[] | undefined> = { ...(asked?.headers ?? {}) };
  delete headers['transfer-encoding'];
  Object.assign(headers, { 'content-type': 'application/json', 'content-length': String(raw.length) });
  const body = judgedBody('container.create', raw);
  return {
    caller: access.caller,
    action: 'container.create',
    ...(body === undefined ? {} : { body }),
    wire: {
      method: 'POST',
      uri: `${ctx.versionPrefix}/containers/create${name ? `?name=${encodeURIComponent(name)}` : ''}`,
      headers,
      body: new Uint8Array(raw),
      peerCertificates: asked?.peerCertificates ?? [],
    },
  };
}

type Stage = NonNullable<PlacementExplanation['refused']>['stage'];

/** A refusal the create would get (a 4xx), as the explanation of the stage that gave it; anything else is thrown on. */
function refusedAt(ctx: RequestContext, stage: Stage, error: unknown): PlacementExplanation {
  if (!isSwarmError(error) || error.httpStatus < 400 || error.httpStatus >= 500) throw error;
  return {
    strategy: ctx.api.scheduler.strategyName,
    filters: ctx.api.scheduler.filterNames,
    softDropped: false,
    nodes: [],
    summary: `refused by ${stage} before scheduling`,
    error: error.message,
    refused: { stage, code: error.code, status: error.httpStatus },
  };
}

/**
 * `/_swarm/v1/explain`: a dry run of what a `docker run` of this config goes through, as
 * `kubectl --dry-run=server`: the authorizers asked about `container.create` with its body, the
 * references checked as the caller's, the admission controllers, then the scheduler, stopping
 * before the engine (no volume is made, nothing is created). A refusal at a stage is that stage's,
 * with the text, code and status the create would get. The caller was authenticated, and allowed
 * `swarm.explain`, before this handler.
 */
export async function explainCreate(ctx: RequestContext, config: ContainerConfig, name?: string): Promise<PlacementExplanation> {
  const { access } = ctx;
  const control = ctx.api.access;
  if (!access || !control?.enforcing) return ctx.api.cluster.explain(config);
  let asCreate: RequestContext;
  try {
    const allowed = control.authorizing ? await control.authorize(createQuestion(ctx, access, config, name)) : undefined;
    asCreate = allowed
      ? { ...ctx, access: { ...access, action: 'container.create', decision: allowed.record, placement: allowed.placement } }
      : { ...ctx, access: { ...access, action: 'container.create', placement: [] } };
    checkCreateScope(asCreate, config);
  } catch (error) {
    return refusedAt(ctx, 'authorization', error);
  }
  let admitted: ContainerConfig;
  try {
    admitted = await admitCreateConfig(asCreate, config);
  } catch (error) {
    return refusedAt(ctx, 'admission', error);
  }
  const explanation = ctx.api.cluster.explain(placedCreate(asCreate, admitted));
  const placement = asCreate.access?.placement ?? [];
  if (explanation.error === undefined || placement.length === 0) return explanation;
  // the create's refusal names the rules that limited its nodes: so does its dry run
  const error = CoreErrors.placementLimitedByAccess({
    code: ErrorCodes.NO_NODE_AVAILABLE,
    refusal: explanation.error,
    rules: placement.map((constraint) => constraint.rule).join('; '),
  }).message;
  return { ...explanation, error };
}
