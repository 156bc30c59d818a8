import type { ContainerInspect, ContainerSummary, JsonObject } from '@swarm/plugin-sdk/docker';
import { humanDuration } from '@swarm/plugin-sdk/helpers';

/**
 * The `docker ps` row of a container, built from its inspect the way dockerd builds its list
 * (daemon/list.go): one inspect per refresh instead of an id-filtered `GET /containers/json`,
 * which makes dockerd walk every container it has.
 */

interface InspectState {
  Status?: string;
  Running?: boolean;
  Paused?: boolean;
  Restarting?: boolean;
  Dead?: boolean;
  ExitCode?: number;
  StartedAt?: string;
  FinishedAt?: string;
  Health?: { Status?: string };
}

type PortMap = Record<string, Array<{ HostIp?: string; HostPort?: string }> | null>;

interface RowPort {
  IP?: string;
  PrivatePort: number;
  PublicPort?: number;
  Type: string;
}

const ZERO_TIME = '0001-01-01T00:00:00Z';

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function timeOf(text: string | undefined): number | undefined {
  if (!text || text.startsWith('0001-01-01')) return undefined;
  const time = Date.parse(text);
  return Number.isNaN(time) ? undefined : time;
}

function healthSuffix(health: InspectState['Health']): string {
  switch (health?.Status) {
    case 'starting':
      return ' (health: starting)';
    case 'healthy':
      return ' (healthy)';
    case 'unhealthy':
      return ' (unhealthy)';
    default:
      return '';
  }
}

/** dockerd's State.String(): `Up 5 seconds`, `Exited (0) 2 minutes ago`, `Created`, ... */
export function statusText(state: InspectState, now: number): string {
  const started = timeOf(state.StartedAt);
  const finished = timeOf(state.FinishedAt);
  if (state.Running) {
    if (state.Paused) return `Up ${humanDuration(now - (started ?? now))} (Paused)`;
    if (state.Restarting) return `Restarting (${state.ExitCode ?? 0}) ${humanDuration(now - (finished ?? now))} ago`;
    return `Up ${humanDuration(now - (started ?? now))}${healthSuffix(state.Health)}`;
  }
  if (state.Status === 'removing') return 'Removal In Progress';
  if (state.Dead) return 'Dead';
  if (started === undefined) return 'Created';
  if (finished === undefined) return '';
  return `Exited (${state.ExitCode ?? 0}) ${humanDuration(now - finished)} ago`;
}

/** `Path` and `Args` as dockerd joins them for the COMMAND column (arguments with spaces quoted). */
function commandOf(inspect: ContainerInspect): string {
  const path = typeof inspect['Path'] === 'string' ? inspect['Path'] : '';
  const args = Array.isArray(inspect['Args']) ? (inspect['Args'] as unknown[]).map(String) : [];
  if (args.length === 0) return path;
  return `${path} ${args.map((arg) => (arg.includes(' ') ? `'${arg}'` : arg)).join(' ')}`;
}

function portsOf(ports: PortMap | undefined): RowPort[] {
  const rows: RowPort[] = [];
  for (const [key, bindings] of Object.entries(ports ?? {})) {
    const [port = '', proto = 'tcp'] = key.split('/');
    const privatePort = Number.parseInt(port, 10);
    if (Number.isNaN(privatePort)) continue;
    if (!bindings || bindings.length === 0) {
      rows.push({ PrivatePort: privatePort, Type: proto });
      continue;
    }
    for (const binding of bindings) {
      const publicPort = Number.parseInt(binding.HostPort ?? '', 10);
      rows.push({
        IP: binding.HostIp ?? '',
        PrivatePort: privatePort,
        ...(Number.isNaN(publicPort) ? {} : { PublicPort: publicPort }),
        Type: proto,
      });
    }
  }
  return rows;
}

/** dockerd's list leaves a named volume's host path out (`Source: ""`); binds keep theirs. */
function mountsOf(mounts: unknown): unknown[] {
  if (!Array.isArray(mounts)) return [];
  return mounts.map((mount: unknown) => (isObject(mount) && mount['Type'] === 'volume' ? { ...mount, Source: '' } : mount));
}

/**
 * The row `GET /containers/json?all=1` would give for this container. `previous` keeps the names
 * other containers' links add (`/web/db`): they live on the linking container, so only a full
 * list refresh learns them.
 */
export function rowFromInspect(inspect: ContainerInspect, previous: ContainerSummary | undefined, now = Date.now()): ContainerSummary {
  const state = (isObject(inspect.State) ? inspect.State : {}) as InspectState;
  const settings = isObject(inspect['NetworkSettings']) ? inspect['NetworkSettings'] : {};
  const ownName = inspect.Name.startsWith('/') ? inspect.Name : `/${inspect.Name}`;
  const linkNames = (previous?.Names ?? []).filter((name) => name.lastIndexOf('/') > 0);
  const created = timeOf(typeof inspect['Created'] === 'string' ? inspect['Created'] : ZERO_TIME);
  return {
    Id: inspect.Id,
    Names: [ownName, ...linkNames],
    Image: inspect.Config?.Image ?? inspect.Image,
    ImageID: inspect.Image,
    Command: commandOf(inspect),
    Created: created === undefined ? 0 : Math.floor(created / 1000),
    Ports: portsOf(settings['Ports'] as PortMap | undefined),
    Labels: inspect.Config?.Labels ?? {},
    State: state.Status ?? '',
    Status: statusText(state, now),
    HostConfig: { NetworkMode: inspect.HostConfig?.NetworkMode ?? 'default' },
    NetworkSettings: { Networks: isObject(settings['Networks']) ? settings['Networks'] : {} },
    Mounts: mountsOf(inspect['Mounts']),
  };
}
