import type { Logger } from './logger.js';
import type { ContainerConfig, NetworkCreateRequest } from './types/docker.js';

/*
 * `@swarm/plugin-sdk/access`: the contract of the three access plugin kinds (plugin API 2.1; no opinion 2.2).
 *
 * - `authn` (an `Authenticator`) says who is calling, from the request's TLS peer certificate or
 *   headers. The host asks the configured authenticators in order; the first that knows the caller
 *   wins; nobody knowing them makes the caller `system:anonymous`.
 * - `authz` (an `Authorizer`) says whether the caller may do an action, and which objects they
 *   may see. The host asks every configured authorizer in order: none may deny, as dockerd chains
 *   its authorization plugins; since plugin API 2.2 an authorizer may also have no opinion
 *   (Kubernetes' `NoOpinion`), and a request is allowed only when at least one allows it.
 * - `admission` (an `AdmissionController`) validates, and may amend, what a create or update
 *   would run, after authorization allowed it.
 *
 * Each kind's provider is a factory: the host calls it once per deployment with the options the
 * config gives that entry (`authz: [['rules', { ... }]]`).
 */

/** The anonymous caller's user and group (Kubernetes' names). */
export const ANONYMOUS_USER = 'system:anonymous';
export const UNAUTHENTICATED_GROUP = 'system:unauthenticated';

/** Who is calling. */
export interface Caller {
  /** `alice`; `system:anonymous` when no authenticator knows the caller. */
  readonly user: string;
  readonly uid?: string;
  readonly groups: readonly string[];
  /**
   * How the caller was authenticated, as dockerd reports it to its authorization plugins
   * (`UserAuthNMethod`): `TLS` for a client certificate, `token` for a bearer token, empty for
   * anonymous.
   */
  readonly method: string;
}

/** A TLS client certificate as an authenticator reads it. */
export interface PeerCertificate {
  /** Subject fields: `CN` once, `O` (organisations) any number of times. */
  readonly subject: { readonly CN?: string; readonly O: readonly string[] };
  /** The DER bytes (dockerd sends them base64-encoded in `RequestPeerCertificates`). */
  readonly raw: Uint8Array;
}

/** What an authenticator sees of a request. */
export interface AuthenticationRequest {
  readonly method: string;
  /** The request target as the client sent it (`/v1.41/containers/json?all=1`). */
  readonly uri: string;
  /** Lower-case header names, as Node.js gives them. */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The verified client certificate chain, leaf first; empty without TLS client auth. */
  readonly peerCertificates: readonly PeerCertificate[];
  readonly remoteAddress: string;
}

/**
 * An authenticator answers the caller it recognises, `undefined` when the request carries nothing
 * it knows (the next authenticator is asked), or an `AuthenticationFailure` when the request
 * carries a credential of its kind that is wrong (an unknown token): the host then answers 401 and
 * asks no one else.
 */
export interface Authenticator {
  authenticate(request: AuthenticationRequest): AuthenticationResult | Promise<AuthenticationResult>;
}

export interface AuthenticationFailure {
  readonly failed: true;
  /** Shown to the client: say what was wrong, never echo the credential. */
  readonly reason: string;
}

export type AuthenticationResult = Caller | AuthenticationFailure | undefined;

/** Kinds of object an action may be about. */
export type AccessObjectKind = 'container' | 'exec' | 'image' | 'network' | 'volume' | 'node' | 'plugin' | 'system';

/** The object an action is about, as far as the host knows it. */
export interface AccessObject {
  readonly kind: AccessObjectKind;
  /** Full ID when the object exists (an image, a container); absent for a create. */
  readonly id?: string;
  readonly name?: string;
  readonly labels: Readonly<Record<string, string>>;
  /** Name of the node the object lives on, when it lives on one. */
  readonly node?: string;
}

/**
 * What the request looks like on the wire, for authorizers that speak a wire protocol (Docker's
 * AuthZ plugins). `body` is present exactly when dockerd would send it to its plugins: a body of
 * at most 1 MiB whose content type is JSON.
 */
export interface WireRequest {
  readonly method: string;
  /** As the client sent it, version prefix and query included. */
  readonly uri: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body?: Uint8Array;
  readonly peerCertificates: readonly PeerCertificate[];
}

/** One question to an authorizer. */
export interface AccessRequest {
  readonly caller: Caller;
  /**
   * `<kind>.<verb>`: `container.create`, `container.exec`, `container.logs`, `network.connect`,
   * `image.pull`, `swarm.explain`, ... The host's action catalogue (README) lists them all.
   */
  readonly action: string;
  /** Absent for actions on no object (`container.list`, `system.info`). */
  readonly object?: AccessObject;
  /** The create or update body (parsed JSON) of `*.create`, `container.update`, `network.connect`. */
  readonly body?: unknown;
  readonly wire: WireRequest;
}

export type AccessDecision =
  | {
      readonly allowed: true;
      /**
       * Node constraints the placement of this create must meet (`zone==a`), each with the rule
       * that imposes it, named in a refusal when no node meets them.
       */
      readonly placement?: readonly PlacementConstraint[];
    }
  | {
      readonly allowed: false;
      /** Shown to the client: `user bob (role view on team b) may not container.remove`. */
      readonly reason: string;
      /** The rule or binding that decided, for the audit log. */
      readonly rule?: string;
    };

/**
 * An authorizer's "no opinion" (plugin API 2.2, Kubernetes' `NoOpinion`): the action is not its
 * business, the other authorizers decide. The host allows a request that no authorizer denies and
 * at least one allows, and refuses one that every authorizer abstains on, so an authorizer that
 * restricts a few actions abstains on the rest (actions a newer host adds included) instead of
 * allowing or refusing them. `allowed` is absent, so code written for 2.1 that reads
 * `decision.allowed` takes it for a refusal.
 */
export interface NoOpinion {
  /** Absent: neither allowed nor refused. */
  readonly allowed?: undefined;
  /** Marks the answer (`isNoOpinion` tests it). */
  readonly noOpinion: true;
  /** Why, for the audit log (`not a container action`). */
  readonly reason?: string;
  /** The rule that abstained, for the audit log. */
  readonly rule?: string;
}

/** The no-opinion answer (plugin API 2.2), for `return NO_OPINION`. */
export const NO_OPINION: NoOpinion = Object.freeze({ noOpinion: true as const });

/** What `authorize` answers: allow, deny or (plugin API 2.2) no opinion. */
export type AuthzDecision = AccessDecision | NoOpinion;

/** True for a no-opinion answer. */
export function isNoOpinion(decision: AuthzDecision): decision is NoOpinion {
  return decision.allowed === undefined && (decision as NoOpinion).noOpinion === true;
}

export interface PlacementConstraint {
  /** A constraint expression in Swarm classic's syntax (`zone==a`, `node!=n3`). */
  readonly expression: string;
  /** Names the rule in refusals: `binding team-b: nodes zone==a`. */
  readonly rule: string;
}

/**
 * The answer a request got, for authorizers that look at it after (Docker's `AuthZRes`). As dockerd,
 * the host also tells them of answers it cannot change, with `statusCode` 0 and no body: a
 * handler's error, and a hijacked connection (attach, exec) once it ended; their decision then
 * changes nothing.
 */
export interface WireResponse {
  readonly statusCode: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** Present exactly when dockerd would send it: a buffered, non-streamed JSON body of at most 1 MiB. */
  readonly body?: Uint8Array;
}

/** Which objects a caller may see. What they may not see does not exist for them. */
export interface Visibility {
  sees(object: AccessObject): boolean;
  /**
   * True when `sees` answers true for every object: the host then shows the caller the cluster
   * as it is, without asking `sees` of each object (lists, streams and the web view's shared frames).
   */
  readonly everything?: boolean;
}

export interface Authorizer {
  /**
   * Allow, deny, or (plugin API 2.2) `NO_OPINION`. A plugin that answers no opinion declares
   * `apiVersion: '^2.2.0'`: a 2.1 host does not load it.
   */
  authorize(request: AccessRequest): AuthzDecision | Promise<AuthzDecision>;
  /**
   * Asked after the handler answered a request this authorizer allowed, for authorizers that
   * judge answers. A denial replaces an answer not yet sent with a 403. The host buffers answers
   * only when some authorizer has this method.
   */
  review?(request: AccessRequest, response: WireResponse): AccessDecision | Promise<AccessDecision>;
  /**
   * The caller's view, asked once per request that lists, streams or looks objects up. Without
   * this method the authorizer lets the caller see everything.
   */
  visibility?(caller: Caller): Visibility | Promise<Visibility>;
  /**
   * What the caller may do, in words for people (`edit on team a`, `view on everything`): the web
   * view shows it. Without this method the authorizer says nothing.
   */
  roles?(caller: Caller): readonly string[];
}

/** What an admission controller judges: something that would run, or hold a host's files. */
export interface AdmissionRequest {
  readonly caller: Caller;
  /**
   * - `container.create`: the create's config.
   * - `container.update`: the container's config with the fields the update changes laid over
   *   its `HostConfig`.
   * - `container.exec`: the container's config with the exec's `User` and its `Privileged` (as
   *   `HostConfig.Privileged`) laid over: what the exec would run as.
   * - `volume.create`: the volume as the one mount of a config (`HostConfig.Mounts[0]`: `Type`
   *   `volume`, `Source` its name, `VolumeOptions.DriverConfig` its driver and options), so that
   *   the rules for mounts judge it; name fields of the volume create (`DriverOpts.device`).
   * - `image.build`: the container every `RUN` step of the build runs in, as a config: the build's
   *   query parameters under the `HostConfig` fields the engine gives that container
   *   (`networkmode` as `NetworkMode`, `cgroupparent` as `CgroupParent`, `isolation`, `shmsize`,
   *   `memory`, `memswap`, `cpushares`, `cpuperiod`, `cpuquota`, `cpusetcpus`, `cpusetmems`,
   *   `ulimits`, `extrahosts`), `Image` empty; `source` is the URL in `remote`, if any, and
   *   `fetches` (plugin API 2.3) every URL the engine would fetch: `remote`'s and the Dockerfile's.
   *   A BuildKit build is asked about the same way: its entitlements as `NetworkMode: host`
   *   (`network.host`) and `Privileged: true` (`security.insecure`), its Dockerfile frontend's
   *   options as the fields above, its remote contexts and sources as `remote` fetches, and its
   *   Dockerfile's `ADD` URLs when it comes over the build's session (a second question).
   * - `image.import`: an image made from a URL or an upload (`fromSrc`): `config` is `{ Image: '' }`,
   *   `source` the URL when the engine would fetch one, `fetches` (2.3) the same as a list, then the
   *   `ADD` URLs of the build triggers its `changes` write (`ONBUILD ADD http://...`), which every
   *   build on the image would fetch. A commit is asked about the same way (it imports the
   *   container's filesystem) when it has `changes` or the image would get build triggers (its
   *   body's or the container's `OnBuild`): no `source`, `object` the container, `fetches` those
   *   triggers' `ADD` URLs.
   * - `network.create` (plugin API 2.2): a network a caller creates; `network` is its create body
   *   as the engine decodes it (driver, driver and IPAM options, which can name the host's
   *   interfaces: a macvlan's `parent`, a bridge's `com.docker.network.bridge.name`), and `config`
   *   is `{ Image: '' }`.
   * A controller that judges every action it does not know as a container create judges the
   * build and the import sensibly: their configs have a container's shape. It lets every network
   * create pass, as a host before 2.2 did (it never asked about them): a controller that judges
   * what a network reaches on the host reads `network`. A network connect is not asked about: its
   * endpoint settings (addresses, aliases, MAC, driver options) are those a create's
   * `NetworkingConfig` has, in a network already judged, and the authorizers judge the container
   * and the network it names.
   */
  readonly action:
    'container.create' | 'container.update' | 'container.exec' | 'volume.create' | 'image.build' | 'image.import' | 'network.create';
  /** The config as described for the action (the controller's own copy: amend it through `amended`). */
  readonly config: Readonly<ContainerConfig>;
  /** The container being updated, exec'd into or committed. */
  readonly object?: AccessObject;
  /**
   * `image.build`, `image.import`: a URL the engine would fetch for the caller (`remote`,
   * `fromSrc`), from its own place in the network. Absent for a context or archive the client
   * sends, and for BuildKit's `remote=client-session` (the client streams the context).
   */
  readonly source?: { readonly parameter: 'remote' | 'fromSrc'; readonly url: string };
  /**
   * Plugin API 2.3, `image.build` and `image.import`: every URL the engine would fetch for the
   * caller, `source`'s first, then those of the Dockerfile of a classic build's context (`ADD
   * http://...`) or of an import's or commit's build triggers (`ONBUILD ADD http://...`, fetched
   * by the builds on the image), each with what makes the engine fetch it; `[]` when it fetches none. The host
   * reads the Dockerfile only when an admission controller is configured. A context the engine
   * fetches itself (`remote`) brings its own Dockerfile, which the host does not read. Absent from
   * a host before 2.3, which gives only `source`: a controller reads `fetches ?? source`.
   */
  readonly fetches?: readonly EngineFetch[];
  /**
   * `network.create`: the create body as the engine decodes it (moby's `NetworkCreateRequest`);
   * the labels are those the network will carry, the owner and team labels included. The
   * controller's own copy; a network is judged, never amended.
   */
  readonly network?: Readonly<NetworkCreateRequest>;
}

/** A URL the engine would fetch for a caller, from its own place in the network (plugin API 2.3). */
export interface EngineFetch {
  /** What makes the engine fetch it: a query parameter (`remote`, `fromSrc`) or the Dockerfile's `ADD`. */
  readonly from: 'remote' | 'fromSrc' | 'ADD';
  /**
   * The URL as the engine would fetch it (variables expanded, as the classic builder expands them).
   * When `unresolved`, the source as the Dockerfile writes it (`${BASE_URL}/x`), `''` when the
   * Dockerfile itself cannot be read.
   */
  readonly url: string;
  /**
   * Set when the host cannot know what the engine would fetch, saying why: a variable it cannot
   * resolve (an `ARG` without a value, one the base image's `ENV` may set) in a source that could
   * be a URL, or a Dockerfile it cannot read as the engine does. A controller that restricts URLs
   * refuses it.
   */
  readonly unresolved?: string;
}

export type AdmissionVerdict =
  | {
      readonly allowed: true;
      /** A changed config to use instead (defaults filled in); absent when unchanged. */
      readonly amended?: ContainerConfig;
    }
  | {
      readonly allowed: false;
      /** The policy's name (`baseline`). */
      readonly policy: string;
      /** The rule that refused it (`privileged`, `host-namespaces`). */
      readonly rule: string;
      /** The config field at fault, as a path (`HostConfig.Privileged`). */
      readonly field: string;
      /**
       * Plugin API 2.2: the field is required and the config lacks it. The host then says
       * `admission policy "P" requires FIELD, which is missing` instead of `... forbids FIELD`.
       */
      readonly missing?: boolean;
      /** Extra words after the host's `admission policy "P" forbids FIELD`, e.g. `: /etc is outside /data`. */
      readonly detail?: string;
    };

export interface AdmissionController {
  admit(request: AdmissionRequest): AdmissionVerdict | Promise<AdmissionVerdict>;
}

/** What the host gives an access plugin's factory. */
export interface AccessPluginSettings {
  /** The options the config gives this entry (`['rules', { ... }]`), `{}` when none. */
  readonly options: Readonly<Record<string, unknown>>;
  /** The directory of the config file, to resolve relative paths in the options against. */
  readonly configDir: string;
  readonly logger: Logger;
}

/**
 * The provider of an access plugin is a factory. It throws a `SwarmError` naming the option when
 * the options are wrong; the host prefixes the config key path.
 */
export type AuthenticatorFactory = (settings: AccessPluginSettings) => Authenticator | Promise<Authenticator>;
export type AuthorizerFactory = (settings: AccessPluginSettings) => Authorizer | Promise<Authorizer>;
export type AdmissionFactory = (settings: AccessPluginSettings) => AdmissionController | Promise<AdmissionController>;

/** Labels the manager writes on the containers, networks and volumes a caller creates. */
export const OWNER_LABEL = 'com.docker.swarm.owner';
export const TEAM_LABEL = 'com.docker.swarm.team';

/** One access plugin the config names, with the options it is given (`['rules', { ... }]`). */
export interface AccessEntry {
  readonly name: string;
  readonly options: Readonly<Record<string, unknown>>;
}

/** Who may do what (plugin API 2.1): the access plugins to use, in order, and the audit log. */
export interface AccessSettings {
  readonly authn: readonly AccessEntry[];
  /** Docker AuthZ plugins (`--authorization-plugin`) come first, as `docker` entries, then the config's. */
  readonly authz: readonly AccessEntry[];
  readonly admission: readonly AccessEntry[];
  /**
   * Callers in this group (a certificate's O) are managers: a replica among them may forward a
   * caller's identity to the primary. Without it no forwarded identity is believed.
   */
  readonly managersGroup?: string;
  readonly audit?: AuditSettings;
}

export interface AuditSettings {
  /** A file, or `-` for standard output. */
  readonly path: string;
  readonly maxSizeBytes: number;
  readonly maxBackups: number;
}
