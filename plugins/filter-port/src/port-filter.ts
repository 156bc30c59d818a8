import { fail, PASS, type Filter, type FilterRun, type FilterVerdict, type Node, type PlacementRequest } from '@swarm/plugin-sdk';
import { exposedPorts, heldPorts, usesHostNetwork, type HeldPort } from './container-ports.js';

const bindsAllInterfaces = (hostIp: string): boolean => hostIp === '' || hostIp === '0.0.0.0';

/** Two bindings of the same host port clash when the IPs are equal or either binds every interface. */
function clashes(wanted: HeldPort, held: HeldPort): boolean {
  return wanted.hostPort === held.hostPort && (wanted.hostIp === held.hostIp || bindsAllInterfaces(wanted.hostIp) || bindsAllInterfaces(held.hostIp));
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

function bridgeRun(wanted: HeldPort[]): FilterRun {
  const failures = wanted.map((binding) => fail(`port ${binding.hostPort} (Bridge mode)`));
  const firstClash = (node: Node): number => {
    for (const container of node.containers()) {
      for (const held of heldPorts(container)) {
        const index = wanted.findIndex((binding) => clashes(binding, held));
        if (index >= 0) return index;
      }
    }
    return -1;
  };
  return {
    conditions: wanted.map((binding) => `port ${binding.hostPort} (Bridge mode)`),
    check(node): FilterVerdict {
      const index = firstClash(node);
      return index < 0 ? PASS : failures[index]!;
    },
  };
}

function hostRun(ports: string[]): FilterRun {
  const failures = ports.map((port) => fail(`port ${port} (Host mode)`));
  return {
    conditions: ports.map((port) => `port ${port} (Host mode)`),
    check(node): FilterVerdict {
      for (const container of node.containers()) {
        if (!usesHostNetwork(container)) continue;
        const taken = exposedPorts(container);
        const index = ports.findIndex((port) => taken.includes(port));
        if (index >= 0) return failures[index]!;
      }
      return PASS;
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

  prepare(request: PlacementRequest): FilterRun | undefined {
    if (request.config.HostConfig?.NetworkMode === 'host') {
      const ports = Object.keys(request.config.ExposedPorts ?? {});
      return ports.length > 0 ? hostRun(ports) : undefined;
    }
    const wanted = requestedBindings(request);
    return wanted.length > 0 ? bridgeRun(wanted) : undefined;
  }
}
