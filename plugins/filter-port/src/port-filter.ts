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
function bridgeRun(wanted: HeldPort[], table: NodeTable, portsOf: PortsOf): FilterRun {
  const failures = wanted.map((binding) => fail(`port ${binding.hostPort} (Bridge mode)`));
  const heldIps = wanted.map((binding) => {
    const key = portKey(binding.hostPort);
    return table.derived(`port:bridge:${binding.hostPort}`, (node) => portsOf(node).held.get(key));
  });
  return {
    conditions: wanted.map((binding) => `port ${binding.hostPort} (Bridge mode)`),
    check(_node, row): FilterVerdict {
      for (let i = 0; i < wanted.length; i++) {
        const ips = heldIps[i]!(row);
        if (ips && clashes(wanted[i]!, ips)) return failures[i]!;
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
 * containers; with `--net=host` no host-mode container there may expose the same port.
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
    return wanted.length > 0 ? bridgeRun(wanted, table, this.portsOf) : undefined;
  }
}
