import type { EngineFetch } from '@swarm/plugin-sdk/access';
import type { ContainerConfig } from '@swarm/plugin-sdk/docker';
import { CoreErrors } from '../errors.js';
import type { RequestContext } from './context.js';
import { madeImageLabels } from './image-ownership.js';
import {
  messageMap,
  messages,
  readFields,
  repeatedStrings,
  stringField,
  stringMap,
  varintField,
  type ProtoField,
} from './protobuf-fields.js';
import { withMapEntries, withMessages } from './protobuf-writer.js';
import { refuseHiddenImage, refuseTakenImageName } from './scoped-images.js';

/*
 * BuildKit's requests judged as the classic build is (access-create.ts `admitBuild`): what the
 * engine would do for them becomes the container its `RUN` steps run in and the URLs it would
 * fetch, and the admission controllers judge that as `image.build`. Read from control.proto's
 * `SolveRequest` (the build), gateway.proto's `SolveRequest` (a frontend's, which buildx sends
 * for every build: the control call carries no Dockerfile options then) and ops.proto (LLB, the
 * steps a client may send itself). What cannot be judged (a frontend image, a source policy, a
 * Dockerfile given as LLB) is refused, never passed on unjudged.
 */

/** What one BuildKit request asks the engine to do, as admission judges it. */
export interface BuildKitQuestion {
  readonly host: Record<string, unknown>;
  /** URLs the engine would fetch (remote contexts, HTTP and Git sources). */
  readonly urls: string[];
  /** Images the engine would resolve from its store or a registry. */
  readonly images: string[];
}

const DOCKERFILE_FRONTEND = 'dockerfile.v0';
const LABEL = 'label:';
/** Placement directives, as a classic build's (handlers/build.ts): the scheduler reads them, the engine does not get them. */
const SWARM_DIRECTIVE = /^build-arg:(constraint|affinity|whitelist|reschedule):/;

function notJudged(what: string, instead = 'leave it out, or build with DOCKER_BUILDKIT=0 where the classic builder serves it'): never {
  throw CoreErrors.buildkitNotJudged({ what, instead });
}

function question(): BuildKitQuestion {
  return { host: {}, urls: [], images: [] };
}

// ops.proto: Definition.def; Op.exec/source/build; ExecOp.meta/network/security; Meta.extraHosts/cgroupParent; SourceOp.identifier/attrs.
const OP = { exec: 2, source: 3, build: 5 };
const EXEC = { meta: 1, network: 3, security: 4 };
const META = { extraHosts: 6, cgroupParent: 10 };
const NET_HOST = 1;
const SECURITY_INSECURE = 1;

/** A source's identifier: the images it resolves and the URLs it fetches. */
function judgeSource(identifier: string, attrs: ReadonlyMap<string, string>, into: BuildKitQuestion): void {
  const scheme = identifier.slice(0, identifier.indexOf('://') + 3);
  switch (scheme) {
    case 'docker-image://':
      into.images.push(identifier.slice(scheme.length));
      return;
    case 'local://':
    case 'oci-layout://':
      // the client's own files and content store, through its session
      return;
    case 'http://':
    case 'https://':
      into.urls.push(identifier);
      return;
    case 'git://':
      into.urls.push(attrs.get('git.fullurl') || identifier);
      return;
    default:
      notJudged(`a source ${JSON.stringify(identifier)}`);
  }
}

/** The steps of an LLB definition: what their containers get and what they fetch. */
function judgeDefinition(definition: Buffer, into: BuildKitQuestion): void {
  for (const op of messages(readFields(definition), 1)) {
    const fields = readFields(op);
    if (messages(fields, OP.build).length > 0) notJudged('a build op (a definition read from a file at build time)');
    for (const source of messages(fields, OP.source)) {
      const parts = readFields(source);
      judgeSource(stringField(parts, 1), stringMap(parts, 2), into);
    }
    for (const exec of messages(fields, OP.exec)) {
      const parts = readFields(exec);
      if (varintField(parts, EXEC.network) === NET_HOST) into.host.NetworkMode = 'host';
      if (varintField(parts, EXEC.security) === SECURITY_INSECURE) into.host.Privileged = true;
      for (const meta of messages(parts, EXEC.meta)) {
        const metaFields = readFields(meta);
        const cgroup = stringField(metaFields, META.cgroupParent);
        if (cgroup !== '') into.host.CgroupParent = cgroup;
        const hosts = messages(metaFields, META.extraHosts).map((entry) => {
          const host = readFields(entry);
          return `${stringField(host, 1)}:${stringField(host, 2)}`;
        });
        if (hosts.length > 0) into.host.ExtraHosts = [...((into.host.ExtraHosts as string[] | undefined) ?? []), ...hosts];
      }
    }
  }
}

/** `git@host:repo`, `git://`, `http(s)://`: a context or named context the engine fetches. */
function isRemote(value: string): boolean {
  return /^(git@|git:\/\/|https?:\/\/|ssh:\/\/)/.test(value) || /^github\.com\//.test(value);
}

const CACHE_TYPES = new Set(['registry', 'inline', 'local']);

/** The dockerfile frontend's options (moby/buildkit frontend/dockerui and dockerfile/builder), as the engine acts on them. */
function judgeFrontendAttrs(attrs: ReadonlyMap<string, string>, into: BuildKitQuestion): void {
  for (const [key, value] of attrs) {
    if (key === 'force-network-mode') {
      if (value !== '' && value !== 'sandbox' && value !== 'none') into.host.NetworkMode = value;
    } else if (key === 'add-hosts') {
      const hosts = value
        .split(',')
        .filter((entry) => entry !== '')
        .map((entry) => entry.replace('=', ':'));
      if (hosts.length > 0) into.host.ExtraHosts = [...((into.host.ExtraHosts as string[] | undefined) ?? []), ...hosts];
    } else if (key === 'cgroup-parent') {
      if (value !== '') into.host.CgroupParent = value;
    } else if (key === 'shm-size') {
      const size = Number(value);
      if (Number.isSafeInteger(size) && size > 0) into.host.ShmSize = size;
    } else if (key === 'context') {
      if (value !== '') into.urls.push(value);
    } else if (key === 'contextkey' && value !== 'context') {
      notJudged(`frontend option contextkey=${value}`);
    } else if (key === 'dockerfilekey' && value !== 'dockerfile') {
      // the Dockerfile is judged as it comes over the session from the `dockerfile` directory only
      notJudged(`frontend option dockerfilekey=${value}`);
    } else if (key === 'override-copy-image') {
      notJudged('frontend option override-copy-image (an image the engine runs to copy files)');
    } else if (key.startsWith('attest:sbom')) {
      notJudged('an SBOM attestation (the engine runs a scanner image)', 'build without --sbom');
    } else if (key === 'cache-imports') {
      judgeCacheImports(value);
    } else if (key.startsWith('context:')) {
      judgeNamedContext(key.slice('context:'.length), value, into);
    }
  }
}

function judgeCacheImports(value: string): void {
  let entries: unknown;
  try {
    entries = JSON.parse(value);
  } catch {
    notJudged('a cache-imports option that is not JSON');
  }
  for (const entry of Array.isArray(entries) ? entries : []) {
    const type = (entry as { Type?: unknown; type?: unknown }).Type ?? (entry as { type?: unknown }).type;
    if (typeof type !== 'string' || !CACHE_TYPES.has(type))
      notJudged(`a cache of type ${JSON.stringify(type)}`, 'use a registry or local cache');
  }
}

function judgeNamedContext(name: string, value: string, into: BuildKitQuestion): void {
  if (isRemote(value)) {
    into.urls.push(value);
    return;
  }
  const scheme = value.slice(0, value.indexOf(':'));
  switch (scheme) {
    case 'docker-image':
      into.images.push(value.slice('docker-image:'.length).replace(/^\/\//, ''));
      return;
    case 'local':
    case 'input':
    case 'oci-layout':
    case 'target':
      return;
    default:
      notJudged(`the build context ${name}=${value}`);
  }
}

function judgeFrontend(frontend: string): void {
  if (frontend !== '' && frontend !== DOCKERFILE_FRONTEND) {
    notJudged(
      `the frontend ${JSON.stringify(frontend)} (a frontend image makes steps the manager does not see)`,
      'use the Dockerfile frontend',
    );
  }
}

function judgeInputs(inputs: ReadonlyMap<string, Buffer>, into: BuildKitQuestion): void {
  for (const [name, definition] of inputs) {
    if (name === 'dockerfile') notJudged('a Dockerfile given as a frontend input', 'send the Dockerfile as a file of the build');
    judgeDefinition(definition, into);
  }
}

function judgeCacheEntries(entries: readonly Buffer[]): void {
  for (const entry of entries) {
    const type = stringField(readFields(entry), 1);
    if (!CACHE_TYPES.has(type)) notJudged(`a cache of type ${JSON.stringify(type)}`, 'use a registry or local cache');
  }
}

// control.proto's SolveRequest.
const CONTROL = { definition: 2, frontend: 6, frontendAttrs: 7, cache: 8, entitlements: 9, frontendInputs: 10, sourcePolicy: 12 };
// gateway.proto's SolveRequest.
const GATEWAY = {
  definition: 1,
  frontend: 2,
  frontendOpt: 3,
  final: 10,
  exporterAttr: 11,
  cacheImports: 12,
  frontendInputs: 13,
  sourcePolicies: 15,
};

/** A build (`moby.buildkit.v1.Control/Solve`): its entitlements, its frontend's options, its steps, its caches. */
export function controlSolveQuestion(fields: readonly ProtoField[]): BuildKitQuestion {
  const into = question();
  if (messages(fields, CONTROL.sourcePolicy).length > 0) notJudged('a source policy (it turns one source into another)');
  judgeFrontend(stringField(fields, CONTROL.frontend));
  for (const entitlement of repeatedStrings(fields, CONTROL.entitlements)) {
    if (entitlement === 'network.host') into.host.NetworkMode = 'host';
    else if (entitlement === 'security.insecure') into.host.Privileged = true;
    else notJudged(`the entitlement ${JSON.stringify(entitlement)}`);
  }
  judgeFrontendAttrs(stringMap(fields, CONTROL.frontendAttrs), into);
  for (const definition of messages(fields, CONTROL.definition)) judgeDefinition(definition, into);
  judgeInputs(messageMap(fields, CONTROL.frontendInputs), into);
  for (const cache of messages(fields, CONTROL.cache)) {
    const parts = readFields(cache);
    judgeCacheEntries([...messages(parts, 4), ...messages(parts, 5)]);
  }
  return into;
}

/** A frontend's solve (`moby.buildkit.v1.frontend.LLBBridge/Solve`): its frontend and options, its steps. */
export function gatewaySolveQuestion(fields: readonly ProtoField[]): BuildKitQuestion {
  const into = question();
  if (messages(fields, GATEWAY.sourcePolicies).length > 0) notJudged('a source policy (it turns one source into another)');
  // the oldest clients' way to end a build: its exporter attributes give the image a config the owner labels are not in
  if (varintField(fields, GATEWAY.final) !== 0 || messages(fields, GATEWAY.exporterAttr).some((bytes) => bytes.length > 0)) {
    notJudged(
      "a frontend's final solve (its exporter attributes give the image its config)",
      'use a client that returns its result (buildx)',
    );
  }
  judgeFrontend(stringField(fields, GATEWAY.frontend));
  judgeFrontendAttrs(stringMap(fields, GATEWAY.frontendOpt), into);
  for (const definition of messages(fields, GATEWAY.definition)) judgeDefinition(definition, into);
  judgeInputs(messageMap(fields, GATEWAY.frontendInputs), into);
  judgeCacheEntries(messages(fields, GATEWAY.cacheImports));
  return into;
}

/**
 * The admission controllers' verdict on a BuildKit request, as on a classic build's: the
 * container its steps run in (`NetworkMode` host for `network.host` or `--network host`,
 * `Privileged` for `security.insecure`, `CgroupParent`, `ExtraHosts`) with every URL the engine
 * would fetch (`fetches`: the remote contexts and sources as `remote`, the Dockerfile's `ADD`s).
 * A scoped caller's images must be ones they may see. Throws the refusal.
 */
export async function admitBuildKit(ctx: RequestContext, asked: BuildKitQuestion, dockerfile: readonly EngineFetch[] = []): Promise<void> {
  const access = ctx.access;
  const control = ctx.api.access;
  if (!access || !control?.enforcing) return;
  const config: ContainerConfig = { Image: '', HostConfig: asked.host };
  const fetches: EngineFetch[] = [...asked.urls.map((url): EngineFetch => ({ from: 'remote', url })), ...dockerfile];
  // `source` holds one URL, for a controller before plugin API 2.3 (which reads only it): one question per URL
  const sources = asked.urls.length === 0 ? [undefined] : asked.urls;
  for (const url of sources) {
    await control.admit({
      caller: access.caller,
      action: 'image.build',
      config,
      ...(url ? { source: { parameter: 'remote', url } } : {}),
      fetches,
    });
  }
  for (const image of asked.images) refuseHiddenImage(ctx, image);
}

/** The names a build gives its image: each must be the caller's to take, as a classic build's `-t`. */
export function refuseTakenNames(ctx: RequestContext, names: readonly string[]): void {
  for (const name of names) refuseTakenImageName(ctx, name, 'owned');
}

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

/** `LLBBridge/ResolveImageConfig`: the image whose config the engine reads (from its store, or a registry). */
export function resolveImageQuestion(fields: readonly ProtoField[]): BuildKitQuestion {
  if (messages(fields, 8).length > 0) notJudged('a source policy (it turns one source into another)');
  return { host: {}, urls: [], images: [stringField(fields, 1)] };
}

/** `LLBBridge/ResolveSourceMeta`: the source the engine resolves (an HTTP source is fetched). */
export function resolveSourceQuestion(fields: readonly ProtoField[]): BuildKitQuestion {
  if (messages(fields, 8).length > 0) notJudged('a source policy (it turns one source into another)');
  const into = question();
  for (const source of messages(fields, 1)) {
    const parts = readFields(source);
    judgeSource(stringField(parts, 1), stringMap(parts, 2), into);
  }
  return into;
}
