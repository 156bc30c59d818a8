import {
  fail,
  PASS,
  type Filter,
  type FilterRun,
  type FilterVerdict,
  type Node,
  type NodeTable,
  type PlacementRequest,
} from '@swarm/plugin-sdk';
import { memoizeBySnapshot } from '@swarm/plugin-sdk/helpers';
import { portKey, portsHeldBy, type HeldPort, type NodePorts } from './container-ports.js';

/**
 * The label Docker Compose v2 puts on a replacement container (`up --force-recreate`, a changed
 * service): the ID of the container it replaces. Compose creates the replacement while the old
 * container still runs, then stops and removes the old one and only then starts the replacement,
 * so the old container's ports are free by the time they are bound, as on one engine.
 */
const REPLACES_LABEL = 'com.docker.compose.replace';
const PROJECT_LABEL = 'com.docker.compose.project';
const SERVICE_LABEL = 'com.docker.compose.service';

/** Each node's held ports, worked out once per snapshot of the node. */
type PortsOf = (node: Node) => NodePorts;

const bindsAllInterfaces = (hostIp: string): boolean => hostIp === '' || hostIp === '0.0.0.0';

/** Two bindings of the same host port clash when the IPs are equal or either binds every interface. */
function clashes(wanted: HeldPort, heldIps: readonly string[]): boolean {
  return heldIps.some((hostIp) => wanted.hostIp === hostIp || bindsAllInterfaces(wanted.hostIp) || bindsAllInterfaces(hostIp));
}

function requestedBindings(request: PlacementRequest): HeldPort[] {
  const wanted: HeldPort[] = [];
  for (const bindings of Object.values(request.config.HostConfig?.PortBindings ?? {})) {
    for (const binding of bindings ?? []) {
      if (binding.HostPort) wanted.push({ hostIp: binding.HostIp ?? '', hostPort: binding.HostPort });
    }
  }
  return wanted;
}

// Per requested port, a table column of the IPs each node binds it on (undefined on most nodes),
// kept between decisions: a check reads the column instead of the node's containers.
/** The IPs a port is held on, less the bindings of the container being replaced (once each). */
function withoutReplaced(ips: readonly string[], replaced: NodePorts | undefined, hostPort: string): readonly string[] {
  const freed = replaced?.held.get(portKey(hostPort));
  if (!freed) return ips;
  const left = [...ips];
  for (const ip of freed) {
    const index = left.indexOf(ip);
    if (index >= 0) left.splice(index, 1);
  }
  return left;
}

/** What a replacement names: the old container's full ID, which must be of the same Compose project and service. */
interface Replaced {
  readonly id: string;
  readonly project: string | undefined;
  readonly service: string | undefined;
}

function replacedBy(request: PlacementRequest): Replaced | undefined {
  const labels = request.config.Labels ?? {};
  const id = labels[REPLACES_LABEL];
  if (id === undefined || id === '') return undefined;
  return { id, project: labels[PROJECT_LABEL], service: labels[SERVICE_LABEL] };
}

/** The ports the replaced container holds on this node, when it is here and is what the label says. */
function replacedPorts(node: Node, replaced: Replaced): NodePorts | undefined {
  const old = node.container(replaced.id);
  if (!old || old.id !== replaced.id) return undefined;
  const labels = old.config.Labels ?? (old.summary.Labels as Record<string, string> | undefined) ?? {};
  if (labels[PROJECT_LABEL] !== replaced.project || labels[SERVICE_LABEL] !== replaced.service) return undefined;
  return portsHeldBy([old]);
}

function bridgeRun(wanted: HeldPort[], table: NodeTable, portsOf: PortsOf, replaced: Replaced | undefined): FilterRun {
  const failures = wanted.map((binding) => fail(`port ${binding.hostPort} (Bridge mode)`));
  const heldIps = wanted.map((binding) => {
    const key = portKey(binding.hostPort);
    return table.derived(`port:bridge:${binding.hostPort}`, (node) => portsOf(node).held.get(key));
  });
  return {
    conditions: wanted.map((binding) => `port ${binding.hostPort} (Bridge mode)`),
    check(node, row): FilterVerdict {
      let freed: NodePorts | undefined;
      for (let i = 0; i < wanted.length; i++) {
        let ips = heldIps[i]!(row);
        if (!ips) continue;
        if (replaced !== undefined) {
          freed ??= replacedPorts(node, replaced);
          ips = withoutReplaced(ips, freed, wanted[i]!.hostPort);
        }
        if (clashes(wanted[i]!, ips)) return failures[i]!;
      }
      return PASS;
    },
  };
}

function hostRun(ports: string[], table: NodeTable, portsOf: PortsOf): FilterRun {
  const failures = ports.map((port) => fail(`port ${port} (Host mode)`));
  const exposed = ports.map((port) => table.derived(`port:host:${port}`, (node) => portsOf(node).hostModeExposed.has(port)));
  return {
    conditions: ports.map((port) => `port ${port} (Host mode)`),
    check(_node, row): FilterVerdict {
      const index = exposed.findIndex((exposedHere) => exposedHere(row));
      return index < 0 ? PASS : failures[index]!;
    },
  };
}

/**
 * Swarm classic's port filter: in bridge mode a requested host port must not be bound on the
 * node already (same IP, or either side on every interface), counting stopped and pending
 * containers, except the ones a Compose replacement replaces; with `--net=host` no host-mode
 * container there may expose the same port.
 */
export class PortFilter implements Filter {
  readonly name = 'port';
  private readonly portsOf: PortsOf = memoizeBySnapshot((snapshot) => portsHeldBy(snapshot.containers));

  prepare(request: PlacementRequest, table: NodeTable): FilterRun | undefined {
    if (request.config.HostConfig?.NetworkMode === 'host') {
      const ports = Object.keys(request.config.ExposedPorts ?? {});
      return ports.length > 0 ? hostRun(ports, table, this.portsOf) : undefined;
    }
    const wanted = requestedBindings(request);
    return wanted.length > 0 ? bridgeRun(wanted, table, this.portsOf, replacedBy(request)) : undefined;
  }
}
