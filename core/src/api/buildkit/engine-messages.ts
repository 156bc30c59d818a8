import type { RequestContext } from '../context.js';
import { madeImageLabels } from '../image-ownership.js';
import { messageMap, messages, readFields, stringField, stringMap, type ProtoField } from './protobuf-fields.js';
import { withMapEntries, withMessages } from './protobuf-writer.js';
import { notJudged } from './question.js';
import { CONTROL, DOCKERFILE_FRONTEND, GATEWAY } from './solve-fields.js';

/*
 * BuildKit's requests as the engine gets them, once admitted (admission.ts): the
 * frontend's options and a frontend's result rewritten so the image carries its owner labels and
 * the engine builds only what was judged.
 */

const LABEL = 'label:';
/** Placement directives, as a classic build's (handlers/build.ts): the scheduler reads them, the engine does not get them. */
const SWARM_DIRECTIVE = /^build-arg:(constraint|affinity|whitelist|reschedule):/;

/**
 * The dockerfile frontend's options as the engine gets them: the placement directives taken out
 * of the build args (as a classic build's); under access control the owner labels (`label:`, as
 * a classic build's `labels`), `image-resolve-mode=pull` for a caller with a narrower view (the
 * Dockerfile comes over the session, after this: a base they may not see is pulled, never taken
 * from the engine's store) and `cmdline` (the frontend then builds the Dockerfile itself rather
 * than run the frontend image a `# syntax=` line or BUILDKIT_SYNTAX names).
 */
function frontendChanges(ctx: RequestContext, attrs: ReadonlyMap<string, string>, frontend: string): Map<string, string> {
  const set = new Map<string, string>();
  const access = ctx.access;
  if (!access || !ctx.api.access?.enforcing) return set;
  const requested: Record<string, string> = {};
  for (const [key, value] of attrs) if (key.startsWith(LABEL)) requested[key.slice(LABEL.length)] = value;
  const labels = madeImageLabels(ctx, requested) ?? {};
  for (const [key, value] of Object.entries(labels)) if (requested[key] !== value) set.set(`${LABEL}${key}`, value);
  if (access.scoped) set.set('image-resolve-mode', 'pull');
  if (frontend === DOCKERFILE_FRONTEND) set.set('cmdline', '');
  return set;
}

function withFrontendChanges(ctx: RequestContext, message: Buffer, attrsField: number, frontendField: number): Buffer {
  const fields = readFields(message);
  const attrs = stringMap(fields, attrsField);
  const set = frontendChanges(ctx, attrs, stringField(fields, frontendField));
  const directives = [...attrs.keys()].some((key) => SWARM_DIRECTIVE.test(key));
  if (set.size === 0 && !directives) return message;
  return withMapEntries(message, attrsField, set, (key) => SWARM_DIRECTIVE.test(key));
}

/** A control `Solve` as the engine gets it. */
export function engineControlSolve(ctx: RequestContext, message: Buffer): Buffer {
  return withFrontendChanges(ctx, message, CONTROL.frontendAttrs, CONTROL.frontend);
}

/** A frontend's `Solve` as the engine gets it. */
export function engineGatewaySolve(ctx: RequestContext, message: Buffer): Buffer {
  return withFrontendChanges(ctx, message, GATEWAY.frontendOpt, GATEWAY.frontend);
}

// gateway.proto: ReturnRequest.result, Result.metadata.
const RETURN_RESULT = 1;
const RESULT_METADATA = 10;
const IMAGE_CONFIG = 'containerimage.config';

/**
 * A frontend's result (`LLBBridge/Return`) as the engine gets it: the image config it exports
 * carries the owner labels, written over whatever the client put there, since a client that runs
 * the frontend itself (buildx does) hands the engine the config the image gets. A result that
 * names a built ref without a config would make an image without owner labels: refused.
 */
export function engineReturn(ctx: RequestContext, message: Buffer): Buffer {
  const labels = madeImageLabels(ctx);
  if (!labels) return message;
  return withMessages(message, RETURN_RESULT, (result) => {
    const fields = readFields(result);
    const metadata = new Map<string, Buffer>();
    for (const entry of messages(fields, RESULT_METADATA)) {
      const parts = readFields(entry);
      metadata.set(stringField(parts, 1), messages(parts, 2).at(-1) ?? Buffer.alloc(0));
    }
    const configs = [...metadata.keys()].filter((key) => key === IMAGE_CONFIG || key.startsWith(`${IMAGE_CONFIG}/`));
    if (configs.length === 0) {
      // an image made of a result without a config would carry no owner labels (buildx's probes return an empty ref)
      if (resultRefs(fields))
        notJudged('a result without an image config (its image would carry no owner labels)', 'build with the Dockerfile frontend');
      return result;
    }
    const set = new Map<string, Buffer>();
    for (const key of configs)
      set.set(key, Buffer.from(JSON.stringify(withLabels(metadata.get(key)!, labels, ctx.access?.scoped === true))));
    return withMapEntries(result, RESULT_METADATA, set);
  });
}

/** Whether a result names a built ref: `ref` (a Ref, its `id` 1), `refs` (a RefMap of Refs), or the deprecated string forms. */
function resultRefs(fields: readonly ProtoField[]): boolean {
  const hasId = (ref: Buffer) => stringField(readFields(ref), 1) !== '';
  if (stringField(fields, 1) !== '') return true;
  if (messages(fields, 3).some(hasId)) return true;
  for (const map of messages(fields, 4)) if ([...messageMap(readFields(map), 1).values()].some(hasId)) return true;
  for (const map of messages(fields, 2)) if ([...stringMap(readFields(map), 1).values()].some((id) => id !== '')) return true;
  return false;
}

function withLabels(config: Buffer, labels: Record<string, string>, scoped: boolean): Record<string, unknown> {
  let image: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(config.toString('utf8'));
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new TypeError('not an object');
    image = parsed as Record<string, unknown>;
  } catch {
    notJudged('an image config that is not a JSON object');
  }
  const inner = (typeof image.config === 'object' && image.config !== null ? image.config : {}) as Record<string, unknown>;
  const present = (typeof inner.Labels === 'object' && inner.Labels !== null ? inner.Labels : {}) as Record<string, string>;
  return { ...image, config: { ...inner, Labels: scoped ? { ...present, ...labels } : { ...labels, ...present } } };
}
