import { CoreErrors } from '../../errors.js';
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
import { CONTROL, DOCKERFILE_FRONTEND, GATEWAY } from './solve-fields.js';

/*
 * BuildKit's requests read as admission judges a classic build (access-create.ts `admitBuild`):
 * what the engine would do for them becomes the container its `RUN` steps run in and the URLs it
 * would fetch (admission.ts asks the controllers about it). Read from control.proto's
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

/** The refusal of what the manager cannot judge, with what to do instead (a result it cannot label too: engine-messages.ts). */
export function notJudged(
  what: string,
  instead = 'leave it out, or build with DOCKER_BUILDKIT=0 where the classic builder serves it',
): never {
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
