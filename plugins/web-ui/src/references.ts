import type { Container } from '@swarm/plugin-sdk';
import type { ContainerConfig } from '@swarm/plugin-sdk/docker';
import { moveEnvDirectivesToLabels, swarmDirectives } from '@swarm/plugin-sdk/helpers';
import type { Sees } from './viewer.js';

/** `web:alias` (a link), `web:ro` (volumes-from), `/web:/me/alias` (an old link): the container's name. */
const nameOf = (reference: string): string => reference.split(':')[0]!.replace(/^\//, '');

/** `container==web` or `container!=web`, not a pattern: the container an affinity names. */
function affinityTarget(expression: string): string | undefined {
  const value = /^container\s*(?:==|!=)~?\s*(.+)$/.exec(expression.trim())?.[1]?.trim();
  return value && !value.startsWith('/') && !/[*?]/.test(value) ? value : undefined;
}

/**
 * The other containers a create config names: links, volumes-from, `container:` network, PID and
 * IPC modes, and container affinities (from labels or `-e affinity:`), as the host's create and
 * explain judge them under access control.
 */
export function namedContainers(config: ContainerConfig): string[] {
  const host = config.HostConfig ?? {};
  const lists = [host.VolumesFrom, host.Links].flatMap((list) => (Array.isArray(list) ? (list as string[]) : []));
  const modes = [host.NetworkMode, host.PidMode, host.IpcMode].filter(
    (mode): mode is string => typeof mode === 'string' && mode.startsWith('container:'),
  );
  const affinities = swarmDirectives(moveEnvDirectivesToLabels(config), 'affinities').map(affinityTarget);
  return [
    ...lists.map(nameOf),
    ...modes.map((mode) => mode.slice('container:'.length)),
    ...affinities.filter((name): name is string => name !== undefined),
  ];
}

/**
 * The container a reference names among those the viewer sees: full ID, name, or a prefix of one
 * ID only. Another team's container is not found, as one that does not exist: a dry run must not
 * tell where it runs.
 */
export function findVisible(containers: readonly Container[], reference: string, sees: Sees): Container | undefined {
  const visible = containers.filter(sees);
  const exact = visible.find((container) => container.id === reference || container.name === reference);
  if (exact) return exact;
  const byPrefix = reference === '' ? [] : visible.filter((container) => container.id.startsWith(reference));
  return byPrefix.length === 1 ? byPrefix[0] : undefined;
}
