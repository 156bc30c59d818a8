import { ErrorCodes, isSwarmError, type Logger, type Node, type Scheduler } from '@swarm/plugin-sdk';
import type { AuthConfig, ContainerConfig } from '@swarm/plugin-sdk/docker';
import { SwarmLabels, moveEnvDirectivesToLabels, requestedCpus, reschedulePolicy, swarmDirectives } from '@swarm/plugin-sdk/helpers';
import { cpusToShares, pendingContainer, type EngineContainer } from './engine-container.js';
import { isEngineRefusal } from './engine-faults.js';
import { SwarmErrors } from './errors.js';
import type { EngineMonitor } from './engine-monitor.js';
import type { ContainerIndex } from './container-index.js';

export interface CreationContext {
  scheduler: Scheduler;
  index: ContainerIndex;
  logger: Logger;
  createRetry: number;
  /** Names of creates in flight, so two parallel `docker run --name x` cannot both pass the check. */
  pendingNames: Set<string>;
  /** Healthy and unhealthy nodes the scheduler may see (its health filter decides). */
  candidates(): readonly Node[];
  monitorOf(node: Node): EngineMonitor | undefined;
  imageExists(image: string): boolean;
}

function withLabel(config: ContainerConfig, key: string, value: string): ContainerConfig {
  return { ...config, Labels: { ...(config.Labels ?? {}), [key]: value } };
}

function withImageAffinity(config: ContainerConfig): ContainerConfig {
  const affinities = [...swarmDirectives(config, 'affinities'), `image==${config.Image}`];
  return withLabel(config, SwarmLabels.affinities, JSON.stringify(affinities));
}

function hasNodeConstraint(config: ContainerConfig): boolean {
  return swarmDirectives(config, 'constraints').some((expression) => /^node\s*==/.test(expression));
}

/** The config the engine gets: CPUs read as a count become real shares for that engine. */
function engineConfig(config: ContainerConfig, engineCpus: number): ContainerConfig {
  const cpus = requestedCpus(config);
  if (cpus === 0) return config;
  return { ...config, HostConfig: { ...config.HostConfig, CpuShares: cpusToShares(cpus, engineCpus) } };
}

/**
 * Create on the chosen engine. A missing image is not pulled here: as with Swarm classic the
 * engine's 404 goes back (after the image-affinity retry), and the docker CLI pulls and retries.
 */
async function createOnEngine(
  monitor: EngineMonitor,
  config: ContainerConfig,
  name: string | undefined,
  auth: AuthConfig | undefined,
): Promise<EngineContainer> {
  const created = await monitor.api.createContainer(engineConfig(config, monitor.node.cpus), name, auth);
  // the engine answered, so a read running now (its 'create' event's) sees the container
  const container = await monitor.refreshContainer(created.Id, 'join');
  if (!container) throw SwarmErrors.createdButNotListed();
  return container;
}

async function attempt(
  context: CreationContext,
  config: ContainerConfig,
  name: string | undefined,
  auth: AuthConfig | undefined,
  imageAffinity: boolean,
): Promise<EngineContainer> {
  const names = context.pendingNames;
  if (name && (context.index.nameTaken(name) || names.has(name))) throw SwarmErrors.nameInUse({ name });
  const swarmId = config.Labels?.[SwarmLabels.id] ?? context.index.newSwarmId();
  const toCreate = moveEnvDirectivesToLabels(withLabel(config, SwarmLabels.id, swarmId));
  const request = context.scheduler.request(imageAffinity ? withImageAffinity(toCreate) : toCreate, name);
  const placement = context.scheduler.select(request, context.candidates());
  const node = placement.ranked[0]?.node;
  const monitor = node ? context.monitorOf(node) : undefined;
  if (!monitor) throw SwarmErrors.noNodeChosen();
  monitor.node.addPending(swarmId, pendingContainer(monitor.node, swarmId, name, toCreate));
  if (name) names.add(name);
  try {
    return await createOnEngine(monitor, toCreate, name, auth);
  } catch (error) {
    // The engine's 404 on create means a missing image when the chosen engine does not hold it (dockerd
    // also answers 404 for a missing network): the docker CLI then pulls and retries.
    throw isSwarmError(error, ErrorCodes.NOT_FOUND) && monitor.node.image(config.Image) === undefined ? new ImageMissing(error) : error;
  } finally {
    monitor.node.removePending(swarmId);
    if (name) names.delete(name);
  }
}

/** An engine's 404 on create for an image the chosen engine does not hold (the image-affinity retry's cue). */
class ImageMissing {
  constructor(readonly error: unknown) {}
}

const unwrap = (error: unknown): unknown => (error instanceof ImageMissing ? error.error : error);

/**
 * Swarm classic's CreateContainer: schedule, reserve, create; image-affinity retry, then
 * `swarm.createretry`. A create refused by a dead engine (the refusal marked its node down, so
 * the scheduler no longer sees it) is placed again, once per node at most, outside that count:
 * the engine did nothing, and another node may have room.
 */
export async function createContainer(
  context: CreationContext,
  config: ContainerConfig,
  name: string | undefined,
  auth?: AuthConfig,
): Promise<EngineContainer> {
  for (let replaced = 0; ; replaced++) {
    try {
      return await createWithRetries(context, config, name, auth);
    } catch (error) {
      if (!isEngineRefusal(error) || replaced >= context.candidates().length) throw error;
      context.logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'Engine refused the create, placing it again');
    }
  }
}

async function createWithRetries(
  context: CreationContext,
  config: ContainerConfig,
  name: string | undefined,
  auth?: AuthConfig,
): Promise<EngineContainer> {
  reschedulePolicy(moveEnvDirectivesToLabels(config));
  try {
    return await attempt(context, config, name, auth, false);
  } catch (first) {
    if (SwarmErrors.nameInUse.is(first)) throw first;
    // a malformed expression fails every attempt the same way
    if (isSwarmError(first, ErrorCodes.INVALID_EXPRESSION)) throw first;
    let error = unwrap(first);
    let retries = 0;
    if (first instanceof ImageMissing && !hasNodeConstraint(moveEnvDirectivesToLabels(config)) && context.imageExists(config.Image)) {
      retries++;
      try {
        return await attempt(context, config, name, auth, true);
      } catch (next) {
        error = unwrap(next);
      }
    }
    for (; retries < context.createRetry; retries++) {
      context.logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'Failed to create container, retrying');
      try {
        return await attempt(context, config, name, auth, false);
      } catch (next) {
        error = unwrap(next);
      }
    }
    throw error;
  }
}
