import { ErrorCodes, isSwarmError, type Container } from '@swarm/plugin-sdk';
import { OWNER_LABEL, TEAM_LABEL, type Caller } from '@swarm/plugin-sdk/access';
import type { ContainerConfig, NetworkCreateRequest } from '@swarm/plugin-sdk/docker';
import { SwarmLabels, moveEnvDirectivesToLabels, swarmDirectives } from '@swarm/plugin-sdk/helpers';
import { containerObject, networkObject, volumeObject } from '../access/access-objects.js';
import { CoreErrors } from '../errors.js';
import { readJsonBody } from './body.js';
import { buildFetches, triggerFetches } from './build-fetches.js';
import { amendBuildQuery, importSource, readBuildQuery } from './build-query.js';
import type { RequestContext } from './context.js';
import { findContainer, findNetwork } from './lookups.js';
import { scopeAffinities } from './scoped-affinities.js';
import { refuseHiddenImage } from './scoped-images.js';

// Network modes that name no network object.
const MODES_WITHOUT_NETWORK = new Set(['', 'default', 'bridge', 'host', 'none']);

/** The team a caller's objects belong to: their first group that is not one of the host's own. */
export function teamOf(caller: Caller): string | undefined {
  return caller.groups.find((group) => !group.startsWith('system:'));
}

/**
 * The labels the manager writes on what a caller creates. A label the request already carries
 * was let through by the authorizers (an admin acting for a team) and stays.
 */
export function ownershipLabels(
  ctx: RequestContext,
  labels: Readonly<Record<string, string>> | undefined,
): Record<string, string> | undefined {
  const access = ctx.access;
  if (!access || !ctx.api.access?.enforcing) return labels ? { ...labels } : undefined;
  const out: Record<string, string> = { ...(labels ?? {}) };
  out[OWNER_LABEL] ??= access.caller.user;
  // Written even for a caller with no team, so a team label of the image does not stay on the container.
  out[TEAM_LABEL] ??= teamOf(access.caller) ?? '';
  return out;
}

function containerName(reference: string): string {
  // `--link name:alias`, `--volumes-from name:ro`, and the old `/name:/me/alias` link form
  return reference.split(':')[0]!.replace(/^\//, '');
}

/** `container==web` (not a pattern): the container an affinity names. */
function affinityContainer(expression: string): string | undefined {
  const match = /^container\s*(==|!=)~?\s*(.+)$/.exec(expression.trim());
  const value = match?.[2]?.trim();
  if (!value || value.startsWith('/') || /[*?]/.test(value)) return undefined;
  return value;
}

/**
 * Everything a create config names of other containers and networks: each must be one the caller
 * may see, else the answer is the same 404 as for one that does not exist.
 */
export function checkReferences(ctx: RequestContext, config: ContainerConfig): void {
  const host = config.HostConfig ?? {};
  const containers: string[] = [];
  for (const entry of (host.VolumesFrom as string[] | undefined) ?? []) containers.push(containerName(entry));
  for (const entry of (host.Links as string[] | undefined) ?? []) containers.push(containerName(entry));
  for (const mode of [host.NetworkMode, host.PidMode, host.IpcMode] as Array<string | undefined>) {
    if (typeof mode === 'string' && mode.startsWith('container:')) containers.push(mode.slice('container:'.length));
  }
  for (const expression of swarmDirectives(moveEnvDirectivesToLabels(config), 'affinities')) {
    const name = affinityContainer(expression);
    if (name !== undefined) containers.push(name);
  }
  for (const name of containers) findContainer(ctx, name);
  const endpoints = (config.NetworkingConfig as { EndpointsConfig?: Record<string, unknown> } | undefined)?.EndpointsConfig;
  const networks = new Set(Object.keys(endpoints ?? {}));
  const mode = typeof host.NetworkMode === 'string' ? host.NetworkMode : '';
  if (!MODES_WITHOUT_NETWORK.has(mode) && !mode.startsWith('container:')) networks.add(mode);
  if (ctx.api.cluster.capabilities?.networks) {
    for (const network of networks) if (!MODES_WITHOUT_NETWORK.has(network)) findNetwork(ctx, network);
  }
}

/**
 * A volume name another team holds is refused as taken, as a container name is: mounting it, or
 * "creating" it (an engine answers a create of a name it holds with that volume), would hand over
 * their data. A name nobody holds is created by the engine, as Docker does.
 */
export function refuseHeldVolume(ctx: RequestContext, name: string): void {
  const access = ctx.access;
  const volumes = ctx.api.cluster.capabilities?.volumes;
  if (!access?.scoped || !volumes || name === '') return;
  // `node1/name` creates `name` on node1 (Swarm classic's syntax): the name is what is held.
  const base = name.slice(name.lastIndexOf('/') + 1);
  const held = volumes.list().filter((volume) => volume.name === base);
  if (held.length > 0 && !held.some((volume) => access.sees(volumeObject(volume)))) throw CoreErrors.volumeNameTaken({ name });
}

/**
 * A network name another team holds is refused as taken, as a volume name is: the engine would
 * refuse it anyway, in words that name their network; this answer is the same whichever team
 * holds it. After admission, so that a name nobody holds and a held one get admission's verdict
 * alike.
 */
export function refuseHeldNetwork(ctx: RequestContext, name: string): void {
  const access = ctx.access;
  const networks = ctx.api.cluster.capabilities?.networks;
  if (!access?.scoped || !networks || name === '') return;
  const base = name.slice(name.lastIndexOf('/') + 1);
  const held = networks.list().filter((network) => network.name === base);
  if (held.length > 0 && !held.some((network) => access.sees(networkObject(network)))) throw CoreErrors.networkNameTaken({ name });
}

interface NewVolume {
  readonly name: string;
  readonly driver?: string;
  readonly options?: Readonly<Record<string, string>>;
  readonly labels?: Readonly<Record<string, string>>;
}

/** The volumes a config names, with what `--mount` says of how to make them. */
function volumesToMake(config: ContainerConfig): NewVolume[] {
  const host = config.HostConfig ?? {};
  const made: NewVolume[] = [];
  for (const bind of (host.Binds as string[] | undefined) ?? []) {
    const source = bind.split(':')[0] ?? '';
    if (source !== '' && !source.startsWith('/')) made.push({ name: source });
  }
  type VolumeMount = {
    Type?: string;
    Source?: string;
    VolumeOptions?: { Labels?: Record<string, string>; DriverConfig?: { Name?: string; Options?: Record<string, string> } };
  };
  for (const mount of (host.Mounts as VolumeMount[] | undefined) ?? []) {
    if ((mount.Type ?? 'volume') !== 'volume' || !mount.Source) continue;
    const driver = mount.VolumeOptions?.DriverConfig;
    made.push({
      name: mount.Source,
      ...(driver?.Name ? { driver: driver.Name } : {}),
      ...(driver?.Options ? { options: driver.Options } : {}),
      ...(mount.VolumeOptions?.Labels ? { labels: mount.VolumeOptions.Labels } : {}),
    });
  }
  return made;
}

/**
 * Named volumes a create would make (`-v data:/x` of a name nobody holds) are made here first,
 * with the caller's ownership labels and what `--mount` says of them, as `docker volume create`
 * would make them: the engine would make them without labels, and they would belong to nobody
 * the caller's scope covers. After admission, which judged the mounts' options.
 */
async function ownNewVolumes(ctx: RequestContext, config: ContainerConfig): Promise<void> {
  const volumes = ctx.api.cluster.capabilities?.volumes;
  const management = ctx.api.cluster.capabilities?.volumeManagement;
  if (!volumes || !management) return;
  const fallbackDriver =
    typeof config.HostConfig?.VolumeDriver === 'string' && config.HostConfig.VolumeDriver !== '' ? config.HostConfig.VolumeDriver : 'local';
  const seen = new Set<string>();
  for (const volume of volumesToMake(config)) {
    if (seen.has(volume.name) || volumes.list().some((held) => held.name === volume.name)) continue;
    seen.add(volume.name);
    await management.create({
      Name: volume.name,
      Driver: volume.driver ?? fallbackDriver,
      ...(volume.options ? { DriverOpts: { ...volume.options } } : {}),
      Labels: ownershipLabels(ctx, volume.labels) ?? {},
    });
  }
}

/** Adds the authorizers' node constraints to a create's placement. */
function withPlacement(ctx: RequestContext, config: ContainerConfig): ContainerConfig {
  const placement = ctx.access?.placement ?? [];
  if (placement.length === 0) return config;
  const moved = moveEnvDirectivesToLabels(config);
  const constraints = [...swarmDirectives(moved, 'constraints'), ...placement.map((constraint) => constraint.expression)];
  return { ...moved, Labels: { ...(moved.Labels ?? {}), [SwarmLabels.constraints]: JSON.stringify(constraints) } };
}

/**
 * What a create will run once access control had its say: references checked, the owner and
 * team labels written, the admission controllers' verdict, the authorizers' node constraints.
 */
export async function admitCreate(ctx: RequestContext, config: ContainerConfig): Promise<ContainerConfig> {
  const access = ctx.access;
  const control = ctx.api.access;
  if (!access || !control?.enforcing) return config;
  checkCreateScope(ctx, config);
  const admitted = await admitCreateConfig(ctx, config);
  // After admission: an image nobody has gets admission's verdict first, so must a hidden one.
  refuseHiddenImage(ctx, typeof admitted.Image === 'string' ? admitted.Image : '');
  await ownNewVolumes(ctx, admitted);
  return placedCreate(ctx, admitted);
}

/**
 * What a create names must be the caller's to name: containers and networks it refers to, the
 * volumes it would make (the same 404s and 409s as for what does not exist or is taken). Its image
 * is checked after admission (`admitCreate`), where an image that does not exist is first found
 * missing; a dry run never looks it up, as it never looks up an image that does not exist.
 */
export function checkCreateScope(ctx: RequestContext, config: ContainerConfig): void {
  checkReferences(ctx, config);
  for (const volume of volumesToMake(config)) refuseHeldVolume(ctx, volume.name);
}

/** The admission controllers' verdict on a create, the owner and team labels written first. */
export async function admitCreateConfig(ctx: RequestContext, config: ContainerConfig): Promise<ContainerConfig> {
  const { access } = ctx;
  const control = ctx.api.access;
  if (!access || !control?.enforcing) return config;
  const owned: ContainerConfig = { ...config, Labels: ownershipLabels(ctx, config.Labels) ?? {} };
  return control.admit({ caller: access.caller, action: 'container.create', config: owned });
}

/** An admitted create as the scheduler gets it: affinities among what the caller sees, the authorizers' node limits. */
export function placedCreate(ctx: RequestContext, admitted: ContainerConfig): ContainerConfig {
  const { access } = ctx;
  if (!access) return admitted;
  return withPlacement(ctx, access.scoped ? scopeAffinities(admitted, ctx.api.cluster.nodes(), access) : admitted);
}

/**
 * A placement refused while the caller's access limited it to some nodes: the refusal says so and
 * names the rules (`bindings[1] (group team-b): nodes zone==b`), since the constraint it lists is
 * one the caller never wrote. Same code and status as the scheduler's own refusal.
 */
export function namingAccessLimits(ctx: RequestContext, error: unknown): unknown {
  const placement = ctx.access?.placement ?? [];
  if (placement.length === 0 || !isSwarmError(error)) return error;
  if (error.code !== ErrorCodes.FILTER_UNSATISFIED && error.code !== ErrorCodes.NO_NODE_AVAILABLE && error.code !== ErrorCodes.NO_RESOURCES)
    return error;
  return CoreErrors.placementLimitedByAccess(
    { code: error.code, refusal: error.message, rules: placement.map((constraint) => constraint.rule).join('; ') },
    { httpStatus: error.httpStatus, cause: error, ...(error.details === undefined ? {} : { details: error.details }) },
  );
}

/**
 * A config as `/_swarm/v1/explain` dry-runs it for this caller: naming another team's container
 * (an affinity, a link) is the same 404 as in a create, and their node limits apply.
 */
export function configToExplain(ctx: RequestContext, config: ContainerConfig): ContainerConfig {
  if (!ctx.access || !ctx.api.access?.enforcing) return config;
  checkReferences(ctx, config);
  return withPlacement(ctx, ctx.access.scoped ? scopeAffinities(config, ctx.api.cluster.nodes(), ctx.access) : config);
}

/** An update's resources judged as the container would run with them. */
export async function admitUpdate(ctx: RequestContext, container: Container, update: Record<string, unknown>): Promise<void> {
  const access = ctx.access;
  const control = ctx.api.access;
  if (!access || !control?.enforcing) return;
  // dockerd's update leaves a field as it is when the request gives it as zero (the CLI sends every
  // field): only the fields it changes are laid over what the container has.
  const changed = Object.fromEntries(Object.entries(update).filter(([, value]) => value !== 0 && value !== '' && value !== null));
  const config: ContainerConfig = { ...container.config, HostConfig: { ...(container.config.HostConfig ?? {}), ...changed } };
  await control.admit({ caller: access.caller, action: 'container.update', config, object: containerObject(container) });
}

/** An exec judged as what it would run: the container's config with the exec's user and privileges. */
export async function admitExec(ctx: RequestContext, container: Container, exec: Record<string, unknown>): Promise<void> {
  const access = ctx.access;
  const control = ctx.api.access;
  if (!access || !control?.enforcing) return;
  const host = container.config.HostConfig ?? {};
  const user = typeof exec.User === 'string' && exec.User !== '' ? exec.User : container.config.User;
  const config: ContainerConfig = {
    ...container.config,
    ...(user === undefined ? {} : { User: user }),
    HostConfig: { ...host, Privileged: exec.Privileged === true || host.Privileged === true },
  };
  await control.admit({ caller: access.caller, action: 'container.exec', config, object: containerObject(container) });
}

/** A volume create judged as the mount it would make (a local volume can bind a host path). */
export async function admitVolume(ctx: RequestContext, volume: Record<string, unknown>): Promise<void> {
  const access = ctx.access;
  const control = ctx.api.access;
  if (!access || !control?.enforcing) return;
  const mount = {
    Type: 'volume',
    Source: typeof volume.Name === 'string' ? volume.Name : '',
    Target: '/',
    VolumeOptions: {
      DriverConfig: {
        Name: typeof volume.Driver === 'string' && volume.Driver !== '' ? volume.Driver : 'local',
        Options: volume.DriverOpts ?? {},
      },
    },
  };
  await control.admit({ caller: access.caller, action: 'volume.create', config: { Image: '', HostConfig: { Mounts: [mount] } } });
}

/**
 * A build judged as the container its `RUN` steps run in (what its query gives that container's
 * HostConfig) and every URL the engine would fetch for it (`remote`, and with an admission
 * controller configured, the `ADD` URLs of the Dockerfile in its context, read once and kept for
 * the engine). A container or network it names must be one the caller may see, as in a create.
 * Answers the query the engine gets.
 */
export async function admitBuild(ctx: RequestContext): Promise<URLSearchParams> {
  const access = ctx.access;
  const control = ctx.api.access;
  if (!access || !control?.enforcing) return ctx.query;
  const question = readBuildQuery(ctx.query);
  const { config, source } = question;
  checkReferences(ctx, config);
  const fetches = await buildFetches(ctx, ctx.req, ctx.query, question, control.admitting);
  const admitted = await control.admit({ caller: access.caller, action: 'image.build', config, ...(source ? { source } : {}), fetches });
  return amendBuildQuery(ctx.query, config, admitted);
}

/**
 * An import judged with the URLs the engine would fetch for it: `fromSrc`, if it fetches one, then
 * the `ONBUILD ADD`s of its `changes`, which every build on the image would fetch.
 */
export async function admitImport(ctx: RequestContext, fromSrc: string): Promise<void> {
  const access = ctx.access;
  const control = ctx.api.access;
  if (!access || !control?.enforcing) return;
  const source = importSource(fromSrc);
  const fetches = [...(source ? [{ from: source.parameter, url: source.url }] : []), ...triggerFetches(ctx.query.getAll('changes'))];
  await control.admit({ caller: access.caller, action: 'image.import', config: { Image: '' }, ...(source ? { source } : {}), fetches });
}

/** The strings of an `OnBuild` field, as Go's decoder finds it in an object (any case of the name). */
function onBuildOf(config: unknown): string[] {
  if (typeof config !== 'object' || config === null || Array.isArray(config)) return [];
  return Object.entries(config)
    .filter(([key, value]) => key.toLowerCase() === 'onbuild' && Array.isArray(value))
    .flatMap(([, value]) => (value as unknown[]).filter((item): item is string => typeof item === 'string'));
}

/**
 * A commit is an import of the container's filesystem (`docker export` then `docker import
 * --change`): with `changes`, or build triggers the image gets as they are, it is judged as an
 * `image.import` whose `fetches` are the `ADD`s of those triggers, which every build on the image
 * would fetch. The triggers are those of the commit's body (its `OnBuild`) and, read too since
 * dockerd takes the container's config when the body has none, the container's own. The body is
 * read (and kept for the engine) only when an admission controller is configured.
 */
export async function admitCommit(ctx: RequestContext, container: Container): Promise<void> {
  const access = ctx.access;
  const control = ctx.api.access;
  if (!access || !control?.enforcing || !control.admitting) return;
  const changes = ctx.query.getAll('changes');
  const body = await readJsonBody(ctx.req, ctx.api.limits.maxJsonBodyBytes);
  const triggers = [...onBuildOf(body), ...onBuildOf(container.config)];
  if (changes.length === 0 && triggers.length === 0) return;
  const fetches = triggerFetches(changes, triggers);
  await control.admit({
    caller: access.caller,
    action: 'image.import',
    config: { Image: '' },
    object: containerObject(container),
    fetches,
  });
}

/**
 * A network create judged as what the engine would make of it: a driver or driver option can
 * reach the host's interfaces (a macvlan's `parent`, a bridge's name) or hand it to a plugin.
 * `network` is the decoded body with the labels it will carry; `config` has a container's shape
 * for controllers that judge every action as a create (see AdmissionRequest).
 */
export async function admitNetwork(ctx: RequestContext, network: NetworkCreateRequest): Promise<void> {
  const access = ctx.access;
  const control = ctx.api.access;
  if (!access || !control?.enforcing) return;
  await control.admit({ caller: access.caller, action: 'network.create', config: { Image: '' }, network });
}
