import { ErrorCodes, defineError, type ErrorCode } from '@swarm/plugin-sdk';
import { closestName } from './util/did-you-mean.js';

/**
 * Where a config value came from (config/layers.ts's ConfigOrigin, named by its values here: every
 * folder imports this catalogue, so it imports none of theirs). Flags and defaults get the plain
 * text, a file or an object the key path in front.
 */
type ValueOrigin = 'defaults' | 'file' | 'object' | 'flags';

/**
 * Every error the host raises itself, with its code, HTTP status and text (plugins raise theirs
 * from their own catalogues). Texts Docker clients and scripts match are Docker's and Swarm
 * classic's, word for word.
 */
export const CoreErrors = {
  // --- Docker API: the request ------------------------------------------------------------------
  pageNotFound: defineError('core.api.page-not-found', { code: ErrorCodes.NOT_FOUND, message: () => 'page not found' }),
  badUrlEscape: defineError('core.api.bad-url-escape', {
    code: ErrorCodes.INVALID_ARGUMENT,
    message: (p: { escape: string }) => `invalid URL escape ${JSON.stringify(p.escape)}`,
  }),
  badRequestTarget: defineError('core.api.bad-request-target', {
    code: ErrorCodes.INVALID_ARGUMENT,
    message: (p: { target: string }) => `bad request target ${JSON.stringify(p.target)}: expected a path such as /containers/json`,
  }),
  internalRequestFault: defineError('core.api.internal-fault', {
    code: ErrorCodes.INTERNAL,
    httpStatus: 500,
    message: (p: { reason: string }) => `internal error in swarm while answering this request: ${p.reason}`,
  }),
  pluginFailed: defineError('core.plugin.failed', {
    code: ErrorCodes.PLUGIN_FAILED,
    httpStatus: 500,
    message: (p: { kind: string; name: string; plugin: string; reason: string; where?: string }) =>
      `${p.kind} "${p.name}" (${p.plugin}) failed${p.where ?? ''}: ${p.reason}`,
  }),
  pluginTimedOut: defineError('core.plugin.timeout', {
    code: ErrorCodes.PLUGIN_TIMEOUT,
    httpStatus: 500,
    message: (p: { kind: string; name: string; plugin: string; limit: string; where?: string }) =>
      `${p.kind} "${p.name}" (${p.plugin}) did not answer${p.where ?? ''} within its time limit of ${p.limit} (the plugin entry's timeout option sets it)`,
  }),
  pluginContract: defineError('core.plugin.contract', {
    code: ErrorCodes.PLUGIN_FAILED,
    httpStatus: 500,
    message: (p: { kind: string; name: string; plugin: string; contract: string }) =>
      `${p.kind} "${p.name}" (${p.plugin}) broke its contract: ${p.contract}`,
  }),
  isolatedWorkerStart: defineError('core.plugin.isolated-start', {
    code: ErrorCodes.PLUGIN_LOAD_FAILED,
    httpStatus: 500,
    message: (p: { kind: string; name: string; plugin: string; reason: string }) =>
      `${p.kind} "${p.name}" (${p.plugin}) is isolated and its worker could not load the plugin: ${p.reason}`,
  }),
  isolatedTokenUnavailable: defineError('core.plugin.isolated-token', {
    code: ErrorCodes.FEATURE_UNAVAILABLE,
    message: (p: { token: string }) =>
      `${p.token} is not available to an isolated plugin (isolate: true): only its options and a logger are`,
  }),
  isolatedProviderMissing: defineError('core.plugin.isolated-provider', {
    code: ErrorCodes.UNKNOWN_PROVIDER,
    message: (p: { kind: string; name: string }) => `the isolated plugin provides no ${p.kind} "${p.name}"`,
  }),
  clientTooNew: defineError('core.api.client-too-new', {
    code: ErrorCodes.INVALID_ARGUMENT,
    message: (p: { asked: string; max: string }) => `client version ${p.asked} is too new. Maximum supported API version is ${p.max}`,
  }),
  clientTooOld: defineError('core.api.client-too-old', {
    code: ErrorCodes.INVALID_ARGUMENT,
    message: (p: { asked: string; min: string }) =>
      `client version ${p.asked} is too old. Minimum supported API version is ${p.min}, please upgrade your client to a newer version`,
  }),
  bodyTooLarge: defineError('core.api.body-too-large', {
    code: ErrorCodes.INVALID_ARGUMENT,
    httpStatus: 413,
    message: (p: { size: string; limit: number }) => `request body too large: ${p.size} bytes, the limit is ${p.limit}`,
  }),
  /** Go's net/http answers this 501 to any Transfer-Encoding but `chunked` (dockerd never reads such a body). */
  unsupportedTransferEncoding: defineError('core.api.unsupported-transfer-encoding', {
    code: ErrorCodes.NOT_SUPPORTED,
    message: () => 'Unsupported transfer encoding',
  }),
  bodyNotJsonType: defineError('core.api.body-content-type', {
    code: ErrorCodes.INVALID_ARGUMENT,
    message: (p: { type: string }) => `Content-Type specified (${p.type}) must be 'application/json'`,
  }),
  bodyInvalidJson: defineError('core.api.body-json', {
    code: ErrorCodes.INVALID_ARGUMENT,
    message: (p: { reason: string }) => `invalid JSON body: ${p.reason}`,
  }),
  bodyFieldInvalid: defineError('core.api.body-field-type', {
    code: ErrorCodes.INVALID_ARGUMENT,
    message: (p: { kind: string; field: string; type: string }) =>
      `json: cannot unmarshal ${p.kind} into Go struct field ${p.field} of type ${p.type}`,
  }),
  invalidParameter: defineError('core.api.invalid-parameter', {
    code: ErrorCodes.INVALID_ARGUMENT,
    message: (p: { name: string; reason: string }) => `invalid ${p.name}: ${p.reason}`,
  }),
  /** The engine's own text for a query integer it cannot parse (Go's strconv.Atoi). */
  queryNotInteger: defineError('core.api.query-integer', {
    code: ErrorCodes.INVALID_ARGUMENT,
    message: (p: { value: string }) => `strconv.Atoi: parsing ${JSON.stringify(p.value)}: invalid syntax`,
  }),
  missingParameter: defineError('core.api.missing-parameter', {
    code: ErrorCodes.INVALID_ARGUMENT,
    message: (p: { text: string }) => p.text,
  }),
  invalidFilterJson: defineError('core.api.filter-json', {
    code: ErrorCodes.INVALID_ARGUMENT,
    message: (p: { reason: string }) => `invalid filter: ${p.reason}`,
  }),
  invalidFilterValue: defineError('core.api.filter-value', {
    code: ErrorCodes.INVALID_ARGUMENT,
    message: (p: { key: string; value: string }) => `invalid filter '${p.key}': ${p.value}`,
  }),
  unknownFilter: defineError('core.api.filter-unknown', {
    code: ErrorCodes.INVALID_ARGUMENT,
    message: (p: { filter: string }) => `invalid filter '${p.filter}'`,
  }),
  unrecognisedFilterValue: defineError('core.api.filter-value-unrecognised', {
    code: ErrorCodes.INVALID_ARGUMENT,
    message: (p: { key: string; value: string }) => `Unrecognised filter value for ${p.key}: ${p.value}`,
  }),
  containerConfigEmpty: defineError('core.api.config-empty', {
    code: ErrorCodes.INVALID_ARGUMENT,
    message: () => 'Config cannot be empty in order to create a container',
  }),
  containerNameInvalid: defineError('core.api.container-name', {
    code: ErrorCodes.INVALID_ARGUMENT,
    message: (p: { name: string }) => `Invalid container name (${p.name}), only [a-zA-Z0-9][a-zA-Z0-9_.-] are allowed`,
  }),
  containerOnOtherNode: defineError('core.api.container-other-node', {
    code: ErrorCodes.INVALID_ARGUMENT,
    message: (p: { container: string; node: string; network: string; networkNode: string }) =>
      `container ${p.container} is on node ${p.node}, network ${p.network} on node ${p.networkNode}`,
  }),

  // --- Docker API: what a request names -------------------------------------------------------------
  noSuchContainer: defineError('core.api.no-such-container', {
    code: ErrorCodes.NOT_FOUND,
    message: (p: { name: string }) => `No such container: ${p.name}`,
  }),
  noSuchImage: defineError('core.api.no-such-image', {
    code: ErrorCodes.NOT_FOUND,
    message: (p: { name: string }) => `No such image: ${p.name}`,
  }),
  networkNotFound: defineError('core.api.network-not-found', {
    code: ErrorCodes.NOT_FOUND,
    message: (p: { name: string }) => `network ${p.name} not found`,
  }),
  noSuchNetwork: defineError('core.api.no-such-network', {
    code: ErrorCodes.NOT_FOUND,
    message: (p: { name: string }) => `No such network: ${p.name}`,
  }),
  noSuchVolume: defineError('core.api.no-such-volume', {
    code: ErrorCodes.NOT_FOUND,
    message: (p: { name: string }) => `get ${p.name}: no such volume`,
  }),
  noSuchExec: defineError('core.api.no-such-exec', {
    code: ErrorCodes.NOT_FOUND,
    message: (p: { id: string }) => `No such exec instance: ${p.id}`,
  }),
  noEngineWithAllImages: defineError('core.api.no-engine-with-images', {
    code: ErrorCodes.NOT_FOUND,
    message: (p: { names: readonly string[] }) => `Unable to find an engine containing all images: ${p.names.join(', ')}`,
  }),

  // --- Docker API: reaching the engines ---------------------------------------------------------------
  noHealthyNode: defineError('core.api.no-healthy-node', {
    code: ErrorCodes.NO_NODE_AVAILABLE,
    message: () => 'No healthy node available in the cluster',
  }),
  engineUnhealthy: defineError('core.api.engine-unhealthy', {
    code: ErrorCodes.NODE_UNHEALTHY,
    message: (p: { node: string }) => `Engine ${p.node} is unhealthy`,
  }),
  containerNodeUnhealthy: defineError('core.api.container-node-unhealthy', {
    code: ErrorCodes.NODE_UNHEALTHY,
    message: (p: { container: string; node: string }) => `Container ${p.container} running on unhealthy node ${p.node}`,
  }),
  nodeWithoutEngine: defineError('core.api.node-without-engine', {
    code: ErrorCodes.NOT_SUPPORTED,
    message: (p: { node: string }) => `node ${p.node} has no Docker engine endpoint to forward this call to`,
  }),
  engineAnsweredNoObject: defineError('core.api.engine-no-object', {
    code: ErrorCodes.ENGINE_ERROR,
    httpStatus: 502,
    message: (p: { node: string; what: string }) => `${p.node} answered ${p.what} with no object`,
  }),
  /** Engines that failed an operation the API fanned out: one `node: message` line each, the first one's status. */
  nodesFailed: defineError('core.api.nodes-failed', {
    code: ErrorCodes.ENGINE_ERROR,
    message: (p: { failures: ReadonlyArray<{ readonly node: string; readonly message: string }> }) =>
      p.failures.map((failure) => `${failure.node}: ${failure.message}`).join('\n'),
  }),
  /** Every engine refused a fanned-out streaming call: one message when they agree, else one per node. */
  enginesRefused: defineError('core.api.engines-refused', {
    code: ErrorCodes.ENGINE_ERROR,
    message: (p: { message: string }) => p.message,
  }),
  engineAnswerUnreadable: defineError('core.api.engine-answer', {
    code: ErrorCodes.ENGINE_ERROR,
    message: (p: { reason: string }) => `the engine ${p.reason}`,
  }),

  // --- Docker API: what swarm does not serve -------------------------------------------------------------
  notSupportedByDriver: defineError('core.api.capability-missing', {
    code: ErrorCodes.NOT_SUPPORTED,
    message: (p: { operation: string; driver: string }) => `${p.operation} is not supported with ${p.driver}`,
  }),
  engineDidNotSwitch: defineError('core.api.engine-did-not-switch', {
    code: ErrorCodes.ENGINE_ERROR,
    httpStatus: 502,
    message: (p: { path: string; answer: string }) => `the engine did not switch ${p.path} to HTTP/2: ${p.answer}`,
  }),
  buildkitNotJudged: defineError('core.api.buildkit-not-judged', {
    code: ErrorCodes.PERMISSION_DENIED,
    message: (p: { what: string; instead: string }) =>
      `BuildKit ${p.what} is refused under swarm's access control, which cannot judge what the engine would do with it: ${p.instead}`,
  }),
  pluginCreateNotServed: defineError('core.api.plugin-create', {
    code: ErrorCodes.NOT_SUPPORTED,
    message: () =>
      'plugin create is not supported by swarm: create the plugin on one engine, push it to a registry, then install it through swarm (docker plugin install), which installs it on every node',
  }),
  notSwarmMode: defineError('core.api.not-swarm-mode', {
    code: ErrorCodes.NOT_SUPPORTED,
    httpStatus: 503,
    message: () =>
      'This node is not a swarm manager. Swarm classic (swarm manage) does not run swarm-mode services, nodes, tasks, secrets or configs.',
  }),
  noWebExtension: defineError('core.web.no-extension', {
    code: ErrorCodes.NOT_FOUND,
    message: (p: { name: string }) =>
      `page not found: no web extension "${p.name}" is served here (swarm manage --ui serves the web view at /swarm/ui/; other extensions are named in the config's web key)`,
  }),
  webRoutePath: defineError('core.web.route-path', {
    code: ErrorCodes.PLUGIN_LOAD_FAILED,
    message: (p: { name: string; path: unknown }) => `web extension "${p.name}": route path ${JSON.stringify(p.path)} must start with /`,
  }),
  webRouteHandle: defineError('core.web.route-handle', {
    code: ErrorCodes.PLUGIN_LOAD_FAILED,
    message: (p: { name: string; path: string }) => `web extension "${p.name}": route ${p.path} has no handle()`,
  }),
  webMountFailed: defineError('core.web.mount', {
    code: ErrorCodes.PLUGIN_LOAD_FAILED,
    message: (p: { name: string; reason: string }) => `web extension "${p.name}" failed to mount: ${p.reason}`,
  }),
  webRouteFailed: defineError('core.web.route-failed', {
    code: ErrorCodes.PLUGIN_REGISTER_FAILED,
    message: (p: { name: string; reason: string }) => `web extension "${p.name}" failed: ${p.reason}`,
  }),
  webRouteSilent: defineError('core.web.route-silent', {
    code: ErrorCodes.PLUGIN_REGISTER_FAILED,
    message: (p: { name: string; method: string; path: string }) => `web extension "${p.name}" did not answer ${p.method} ${p.path}`,
  }),
  webAnsweredTwice: defineError('core.web.answered-twice', {
    code: ErrorCodes.PLUGIN_REGISTER_FAILED,
    message: () => 'a web route answered twice',
  }),
  cliRunArguments: defineError('core.cli.run-arguments', {
    code: ErrorCodes.INVALID_ARGUMENT,
    message: (p: { reason: string }) => p.reason,
  }),
  noPrimary: defineError('core.replication.no-primary', {
    code: ErrorCodes.NO_NODE_AVAILABLE,
    message: () => 'No elected primary cluster manager',
  }),

  // --- scheduling ------------------------------------------------------------------------------------
  noNodes: defineError('core.scheduler.no-nodes', {
    code: ErrorCodes.NO_NODE_AVAILABLE,
    message: () => 'No nodes available in the cluster',
  }),
  /** The filters or the strategy left no node: the refusal text, with the refusing component's code. */
  placementRefused: defineError('core.scheduler.refused', {
    code: (p: { code: ErrorCode; text: string }) => p.code,
    message: (p: { code: ErrorCode; text: string }) => p.text,
  }),
  /** A filter refused the request itself (a malformed expression): Swarm classic's text around the filter's, with its code and status. */
  requestRefused: defineError('core.scheduler.request-refused', {
    code: (p: { code: ErrorCode; text: string }) => p.code,
    message: (p: { code: ErrorCode; text: string }) => p.text,
  }),

  // --- configuration -------------------------------------------------------------------------------------
  /** A bad value, worded for where it came from: a flag gets Swarm classic's plain text, a file or object the key path in front. */
  configInvalid: defineError('core.config.invalid', {
    code: ErrorCodes.CONFIG_INVALID,
    message: (p: { origin: ValueOrigin; keyPath: string; text: string }) =>
      p.origin === 'flags' || p.origin === 'defaults' ? p.text : `${p.keyPath}: ${p.text}`,
  }),
  configShapeInvalid: defineError('core.config.shape', {
    code: ErrorCodes.CONFIG_INVALID,
    message: (p: { source: string; lines: readonly string[] }) =>
      `invalid config${p.source ? ` in ${p.source}` : ''}: ${p.lines.join('; ')}`,
  }),
  configFileNotFound: defineError('core.config.not-found', {
    code: ErrorCodes.CONFIG_NOT_FOUND,
    message: (p: { path: string }) => `config file not found: ${p.path}`,
  }),
  configUnreadable: defineError('core.config.unreadable', {
    code: ErrorCodes.CONFIG_INVALID,
    message: (p: { where: string; reason: string; fix: string }) => `cannot read config ${p.where}: ${p.reason}; ${p.fix}`,
  }),
  scaffoldName: defineError('core.cli.scaffold-name', {
    code: ErrorCodes.INVALID_ARGUMENT,
    message: (p: { name: string }) =>
      `invalid plugin name "${p.name}": use lower-case letters, digits and "-", starting with a letter (the package becomes swarm-plugin-<name>)`,
  }),
  scaffoldKind: defineError('core.cli.scaffold-kind', {
    code: ErrorCodes.INVALID_ARGUMENT,
    message: (p: { kind: string; kinds: string }) => `--kind ${p.kind} cannot be scaffolded yet; use one of: ${p.kinds}`,
  }),
  scaffoldExists: defineError('core.cli.scaffold-exists', {
    code: ErrorCodes.INVALID_ARGUMENT,
    message: (p: { dir: string }) => `${p.dir} already exists: give another name or --dir`,
  }),
  discoveryRequired: defineError('core.config.discovery-required', {
    code: ErrorCodes.CONFIG_INVALID,
    message: (p: { command: string }) => `discovery required to manage a cluster. See 'swarm ${p.command} --help'.`,
  }),
  unknownProvider: defineError('core.config.unknown-provider', {
    code: ErrorCodes.UNKNOWN_PROVIDER,
    message: (p: {
      kind: string;
      name: string;
      available: readonly string[];
      origin: ValueOrigin;
      keyPath: string;
      installedBy?: string | undefined;
      missing?: { packageName: string; image?: string } | undefined;
    }) => {
      const suggestion = closestName(p.name, p.available);
      const hint =
        p.installedBy !== undefined
          ? `; ${p.installedBy} (installed here) provides it: add '${p.installedBy}' to plugins`
          : p.missing !== undefined
            ? `; it is in ${p.missing.packageName}, an optional dependency of @swarm/core not installed here${
                p.missing.image === undefined ? '' : ` (the lean image swarm leaves it out): use the image ${p.missing.image}, or`
              } npm install ${p.missing.packageName}`
            : suggestion === undefined
              ? ''
              : `; did you mean "${suggestion}"?`;
      const text = `unknown ${p.kind} "${p.name}"; available: ${p.available.join(', ') || '(none)'}${hint}`;
      return p.origin === 'flags' || p.origin === 'defaults' ? text : `${p.keyPath}: ${text}`;
    },
  }),
  unknownProviders: defineError('core.config.unknown-providers', {
    code: ErrorCodes.UNKNOWN_PROVIDER,
    message: (p: { lines: readonly string[] }) => p.lines.join('\n'),
  }),
  discoveryUriInvalid: defineError('core.discovery.uri', {
    code: ErrorCodes.DISCOVERY_INVALID,
    message: (p: { uri: string }) => `invalid discovery URI "${p.uri}"`,
  }),
  discoveryUnsupported: defineError('core.discovery.unsupported', {
    code: ErrorCodes.DISCOVERY_INVALID,
    message: (p: { scheme: string; uri: string; available?: readonly string[] }) => {
      const suggestion = p.available === undefined ? undefined : closestName(p.scheme, p.available);
      return `unsupported discovery "${p.scheme}://" in "${p.uri}"${
        p.available === undefined ? '' : `; available: ${p.available.map((scheme) => `${scheme}://`).join(', ') || '(none)'}`
      }${suggestion === undefined ? '' : `; did you mean "${suggestion}://"?`}`;
    },
  }),
  discoveryRegisterUnanswered: defineError('core.discovery.register-unanswered', {
    code: ErrorCodes.DISCOVERY_FAILED,
    message: (p: { seconds: number }) => `the discovery service did not answer the registration within ${p.seconds}s (the TTL)`,
  }),
  discoveryCannotRegister: defineError('core.discovery.cannot-register', {
    code: ErrorCodes.NOT_SUPPORTED,
    message: (p: { scheme: string }) =>
      `swarm join: "${p.scheme}://" discovery takes no registrations (its backend finds the engines itself, ` +
      `so there is nothing to join); use a discovery that takes them (zk://, etcd://)`,
  }),
  pluginApiRetired: defineError('core.plugin.api-retired', {
    code: ErrorCodes.PLUGIN_INCOMPATIBLE,
    message: (p: { plugin: string; wants: string; provided: string; changes: string }) =>
      `plugin ${p.plugin} requires plugin API ${p.wants}; this swarm provides ${p.provided}: ${p.changes} — rebuild ${p.plugin} ` +
      `against the @swarm/plugin-sdk of plugin API ${p.provided} and declare apiVersion '^${p.provided.split('.')[0]}.0.0' (see the SDK README's 'Moving to 2.0')`,
  }),
  tlsFileUnreadable: defineError('core.tls.unreadable', {
    code: ErrorCodes.CONFIG_INVALID,
    message: (p: { what: string; path: string; reason: string }) => `cannot read the TLS ${p.what} ${p.path}: ${p.reason}`,
  }),
  tlsNeedsCertAndKey: defineError('core.tls.cert-key', {
    code: ErrorCodes.CONFIG_INVALID,
    message: () => 'TLS needs a certificate and a key (--tlscert, --tlskey)',
  }),
  tlsVerifyNeedsCa: defineError('core.tls.verify-ca', {
    code: ErrorCodes.CONFIG_INVALID,
    message: () => '--tlsverify needs a CA certificate (--tlscacert) to check clients against',
  }),
  unixSocketNotAbsolute: defineError('core.listen.unix-relative', {
    code: ErrorCodes.CONFIG_INVALID,
    message: (p: { value: string }) => `invalid unix socket address ${p.value}: the path must be absolute`,
  }),
  listenAddressInvalid: defineError('core.listen.address', {
    code: ErrorCodes.CONFIG_INVALID,
    message: (p: { value: string }) => `invalid listen address ${p.value}: use tcp://host:port or unix:///path`,
  }),
  listenPortOutOfRange: defineError('core.listen.port', {
    code: ErrorCodes.CONFIG_INVALID,
    message: (p: { value: string }) => `invalid listen address ${p.value}: port out of range`,
  }),
  replicationNeedsAdvertise: defineError('core.replication.advertise', {
    code: ErrorCodes.CONFIG_INVALID,
    message: () => '--advertise address must be provided when using --leader-election',
  }),
  replicationNeedsKvStore: defineError('core.replication.store', {
    code: ErrorCodes.NOT_SUPPORTED,
    message: (p: { discovery: string }) =>
      `--replication needs a key-value discovery store (zk://, etcd://) to elect a primary; "${p.discovery}" cannot`,
  }),

  // --- plugins ------------------------------------------------------------------------------------------
  pluginPathNotFound: defineError('core.plugin.path-not-found', {
    code: ErrorCodes.PLUGIN_NOT_FOUND,
    message: (p: { spec: string; fromDir: string }) => `plugin "${p.spec}" not found: no such file or folder relative to ${p.fromDir}`,
  }),
  pluginNotFound: defineError('core.plugin.not-found', {
    code: ErrorCodes.PLUGIN_NOT_FOUND,
    message: (p: {
      spec: string;
      fromDir: string;
      tried: readonly string[];
      install: string;
      close?: { name: string; packageName: string } | undefined;
    }) =>
      `plugin "${p.spec}" not found from ${p.fromDir} (tried ${p.tried.join(', ')}); ${
        p.close === undefined
          ? ''
          : `did you mean '${p.close.name}'? (${p.close.packageName} is installed here: list it in plugins as '${p.close.name}'); otherwise `
      }install it with: npm install ${p.install}`,
  }),
  pluginLoadFailed: defineError('core.plugin.load-failed', {
    code: ErrorCodes.PLUGIN_LOAD_FAILED,
    message: (p: { plugin: string; entry: string; reason: string }) => `plugin "${p.plugin}" failed to load from ${p.entry}: ${p.reason}`,
  }),
  pluginManifestInvalid: defineError('core.plugin.manifest', {
    code: ErrorCodes.PLUGIN_INVALID_MANIFEST,
    message: (p: { where: string; text: string }) => `invalid plugin manifest in ${p.where}: ${p.text}`,
  }),
  pluginIncompatible: defineError('core.plugin.incompatible', {
    code: ErrorCodes.PLUGIN_INCOMPATIBLE,
    message: (p: { plugin: string; version: string; wants: string; provided: string; packageName: string }) =>
      `plugin "${p.plugin}@${p.version}" requires plugin API ${p.wants}, this swarm provides ${p.provided}; either upgrade swarm ` +
      `(@swarm/core) to a version that provides plugin API ${p.wants}, or install a version of ${p.packageName} built for ` +
      `plugin API ${p.provided} (one whose apiVersion range includes ${p.provided})`,
  }),
  pluginRegisterFailed: defineError('core.plugin.register-failed', {
    code: ErrorCodes.PLUGIN_REGISTER_FAILED,
    message: (p: { plugin: string; reason: string }) => `plugin "${p.plugin}" failed in register(): ${p.reason}`,
  }),
  providerWithoutName: defineError('core.plugin.provider-name', {
    code: ErrorCodes.PLUGIN_REGISTER_FAILED,
    message: (p: { kind: string }) => `a ${p.kind} was registered without a name`,
  }),
  providerShape: defineError('core.plugin.provider-shape', {
    code: ErrorCodes.PLUGIN_REGISTER_FAILED,
    message: (p: { kind: string; name: string }) => `${p.kind} "${p.name}" needs exactly one of useClass, useFactory, useValue`,
  }),
  providerDuplicate: defineError('core.plugin.duplicate', {
    code: ErrorCodes.PLUGIN_DUPLICATE_PROVIDER,
    message: (p: { kind: string; name: string; first: string; second: string }) =>
      `${p.kind} "${p.name}" is provided twice: by "${p.first}" and by "${p.second}"`,
  }),
  /** The config lists one package twice (by one name, or by two that resolve to it). */
  pluginListedTwice: defineError('core.plugin.listed-twice', {
    code: ErrorCodes.CONFIG_INVALID,
    message: (p: { package: string; specs: string }) => `plugins lists ${p.package} twice (${p.specs}): list it once`,
  }),
  /** Two packages whose manifests say the same name: a plugin's name is one package's. */
  pluginNameClaimed: defineError('core.plugin.name-claimed', {
    code: ErrorCodes.PLUGIN_DUPLICATE_PROVIDER,
    message: (p: { name: string; first: string; second: string }) =>
      `plugin name "${p.name}" is claimed by two packages, ${p.first} and ${p.second}; a plugin's manifest name must be its own: ` +
      'uninstall one, or give it a name of its own',
  }),

  // --- CLI (Swarm classic's texts) ------------------------------------------------------------------------
  cliDiscoveryRequired: defineError('core.cli.discovery-required', {
    code: ErrorCodes.INVALID_ARGUMENT,
    message: (p: { action: 'join' | 'list' }) => `discovery required to ${p.action} a cluster. See 'swarm ${p.action} --help'.`,
  }),
  cliAdvertiseMissing: defineError('core.cli.advertise-missing', {
    code: ErrorCodes.INVALID_ARGUMENT,
    message: () => 'missing mandatory --advertise flag',
  }),
  cliAdvertiseFormat: defineError('core.cli.advertise-format', {
    code: ErrorCodes.INVALID_ARGUMENT,
    message: () => '--advertise should be of the form ip:port or hostname:port',
  }),
  cliFlagInvalid: defineError('core.cli.flag-invalid', {
    code: ErrorCodes.INVALID_ARGUMENT,
    message: (p: { flag: string; reason: string }) => `invalid ${p.flag}: ${p.reason}`,
  }),
  cliFlagNotInteger: defineError('core.cli.flag-integer', {
    code: ErrorCodes.INVALID_ARGUMENT,
    message: (p: { flag: string; value: string }) => `invalid value "${p.value}" for flag ${p.flag}`,
  }),
  cliDelayNegative: defineError('core.cli.delay-negative', {
    code: ErrorCodes.INVALID_ARGUMENT,
    message: () => '--delay should not be a negative number',
  }),
  cliHeartbeatTooShort: defineError('core.cli.heartbeat', {
    code: ErrorCodes.INVALID_ARGUMENT,
    message: () => '--heartbeat should be at least one second',
  }),
  cliTtlNotAboveHeartbeat: defineError('core.cli.ttl', {
    code: ErrorCodes.INVALID_ARGUMENT,
    message: () => '--ttl must be strictly superior to the heartbeat value',
  }),
  cliTimeoutNotPositive: defineError('core.cli.timeout', {
    code: ErrorCodes.INVALID_ARGUMENT,
    message: () => '--timeout should be a positive number',
  }),
  cliListTimedOut: defineError('core.cli.list-timed-out', { code: ErrorCodes.TIMEOUT, message: () => 'Timed out' }),
  cliScheduleNeedsExplain: defineError('core.cli.schedule-explain', {
    code: ErrorCodes.INVALID_ARGUMENT,
    message: () => 'swarm schedule only explains placements for now: add --explain',
  }),
  cliTlsNeedsCertAndKey: defineError('core.cli.tls-cert-key', {
    code: ErrorCodes.INVALID_ARGUMENT,
    message: () => '--tlscert and --tlskey must be provided when using --tls',
  }),
  cliTlsVerifyNeedsCa: defineError('core.cli.tlsverify-ca', {
    code: ErrorCodes.INVALID_ARGUMENT,
    message: () => '--tlscacert must be provided when using --tlsverify',
  }),
  cliTlsFilesWithoutTls: defineError('core.cli.tls-files', {
    code: ErrorCodes.INVALID_ARGUMENT,
    message: () => '--tlscert, --tlskey and --tlscacert require the use of either --tls or --tlsverify',
  }),
  cliRefreshRetryDeprecated: defineError('core.cli.refresh-retry', {
    code: ErrorCodes.INVALID_ARGUMENT,
    message: () => '--engine-refresh-retry is deprecated. Use --engine-failure-retry',
  }),
  cliKeyValueFlag: defineError('core.cli.key-value', {
    code: ErrorCodes.INVALID_ARGUMENT,
    message: (p: { flag: string }) => `${p.flag} must contain key=value strings`,
  }),
  cliManagerAddress: defineError('core.cli.manager-address', {
    code: ErrorCodes.INVALID_ARGUMENT,
    message: (p: { host: string }) => `invalid manager address "${p.host}"`,
  }),
  cliManagerAnswered: defineError('core.cli.manager-answered', {
    code: ErrorCodes.ENGINE_ERROR,
    message: (p: { status: number; message: string }) => `manager answered ${p.status}: ${p.message}`,
  }),
  cliManagerUnreachable: defineError('core.cli.manager-unreachable', {
    code: ErrorCodes.ENGINE_UNREACHABLE,
    message: (p: { host: string; reason: string }) => `Cannot connect to the swarm manager at ${p.host}: ${p.reason}`,
  }),
  cliSizeInvalid: defineError('core.cli.size', {
    code: ErrorCodes.INVALID_ARGUMENT,
    message: (p: { value: string }) => `invalid size: '${p.value}'`,
  }),
  cliPortSpecInvalid: defineError('core.cli.port-spec', {
    code: ErrorCodes.INVALID_ARGUMENT,
    message: (p: { spec: string }) => `invalid port specification: "${p.spec}"`,
  }),
  cliCpuSharesInvalid: defineError('core.cli.cpu-shares', {
    code: ErrorCodes.INVALID_ARGUMENT,
    message: (p: { value: string }) => `invalid --cpu-shares: "${p.value}"`,
  }),

  // --- access control (core/src/access) ---------------------------------------------------------
  /** An authenticator's refusal of a credential; its reason never holds the credential. */
  unauthenticated: defineError('core.access.unauthenticated', {
    code: ErrorCodes.UNAUTHENTICATED,
    message: (p: { reason: string }) => `authentication failed: ${p.reason}`,
  }),
  /** An authorizer's denial: its reason is the whole text (Docker AuthZ plugins' texts are the engine's). */
  accessDenied: defineError('core.access.denied', {
    code: ErrorCodes.PERMISSION_DENIED,
    message: (p: { reason: string }) => p.reason,
  }),
  admissionDenied: defineError('core.access.admission-denied', {
    code: ErrorCodes.PERMISSION_DENIED,
    message: (p: { policy: string; field: string; detail: string; missing?: boolean }) =>
      p.missing === true
        ? `admission policy "${p.policy}" requires ${p.field}, which is missing${p.detail}`
        : `admission policy "${p.policy}" forbids ${p.field}${p.detail}`,
  }),
  /** The scheduler's refusal of a placement that access control limited, with the rules named; its code kept. */
  placementLimitedByAccess: defineError('core.access.placement-limited', {
    code: (p: { code: ErrorCode; refusal: string; rules: string }) => p.code,
    message: (p: { code: ErrorCode; refusal: string; rules: string }) =>
      `${p.refusal}\n(your access limits where your containers may run: ${p.rules})`,
  }),
  networkNameTaken: defineError('core.access.network-name-taken', {
    code: ErrorCodes.CONFLICT,
    message: (p: { name: string }) => `Conflict: the network name "${p.name}" is already in use: choose another name for your network`,
  }),
  volumeNameTaken: defineError('core.access.volume-name-taken', {
    code: ErrorCodes.CONFLICT,
    message: (p: { name: string }) => `Conflict: the volume name "${p.name}" is already in use: choose another name for your volume`,
  }),
  /** A name another team's image holds, or a shared image's name given to a team's image: retagging it would take it over. */
  imageNameTaken: defineError('core.access.image-name-taken', {
    code: ErrorCodes.CONFLICT,
    message: (p: { name: string }) => `Conflict: the image name "${p.name}" is already in use: choose another name for your image`,
  }),
  /** A `docker load` whose images would not be the caller's team's (the manager cannot label a loaded image). */
  imageLoadRefused: defineError('core.access.image-load-refused', {
    code: ErrorCodes.PERMISSION_DENIED,
    message: (p: { reason: string }) => `load refused: ${p.reason}`,
  }),
  /** dockerd's conflict for an image a container uses, without naming a container the caller may not see. */
  imageInUse: defineError('core.access.image-in-use', {
    code: ErrorCodes.CONFLICT,
    message: (p: { name: string }) =>
      `conflict: unable to remove repository reference "${p.name}" (cannot be forced) - the image is in use by a container`,
  }),
  accessPluginFailed: defineError('core.access.plugin-failed', {
    code: ErrorCodes.PLUGIN_FAILED,
    httpStatus: 500,
    message: (p: { kind: string; name: string; reason: string }) => `${p.kind} "${p.name}" failed: ${p.reason}`,
  }),
  accessOptionsInvalid: defineError('core.access.options', {
    code: ErrorCodes.CONFIG_INVALID,
    message: (p: { keyPath: string; reason: string }) => `${p.keyPath}: ${p.reason}`,
  }),
  /** `--audit-log` names a file that cannot be opened for writing: the manager does not start without its audit log. */
  auditLogUnwritable: defineError('core.access.audit-unwritable', {
    code: ErrorCodes.CONFIG_INVALID,
    message: (p: { path: string; reason: string }) => `cannot write the audit log ${p.path}: ${p.reason}`,
  }),
} as const;
