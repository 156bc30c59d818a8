import type { Container, Node } from '@swarm/plugin-sdk';
import type { WireContainer, WireNode } from './wire.js';

interface SummaryPort {
  IP?: unknown;
  PrivatePort?: unknown;
  PublicPort?: unknown;
  Type?: unknown;
}

/** `docker ps`'s PORTS column, one entry per port. */
function portsOf(container: Container): string[] {
  const ports = container.summary.Ports;
  if (!Array.isArray(ports)) return [];
  return (ports as SummaryPort[]).map((port) => {
    const inside = `${String(port.PrivatePort)}/${String(port.Type ?? 'tcp')}`;
    if (port.PublicPort === undefined || port.PublicPort === null) return inside;
    const ip = typeof port.IP === 'string' && port.IP !== '' ? `${port.IP}:` : '';
    return `${ip}${String(port.PublicPort)}->${inside}`;
  });
}

/** Short IDs and no empty lists: at 30,000 containers the first message is megabytes. */
export function presentContainer(container: Container): WireContainer {
  const ports = portsOf(container);
  return {
    id: container.id.slice(0, 12),
    name: container.name,
    image: container.image,
    state: container.state,
    ...(ports.length > 0 ? { ports } : {}),
  };
}

function slotsOf(labels: Readonly<Record<string, string>>): number | undefined {
  const raw = labels.containerslots;
  if (raw === undefined || !/^\d+$/.test(raw)) return undefined;
  return Number(raw);
}

/**
 * A node's column, containers sorted by name so cards keep their places between updates. With
 * `visible`, only the containers it lets through (a scoped viewer's): the column's cards and counts
 * are then theirs. Nodes themselves belong to nobody, so the node's own figures stay whole.
 */
export function presentNode(node: Node, key: string, visible?: (container: Container) => boolean): WireNode {
  const labels = node.labels();
  const error = node.status() === 'healthy' ? undefined : node.lastError();
  const all = node.containers();
  const containers = (visible ? all.filter(visible) : all).map(presentContainer);
  containers.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return {
    key,
    id: node.id,
    name: node.name,
    addr: node.addr,
    status: node.status(),
    ...(error ? { error } : {}),
    labels,
    cpus: { used: node.usedCpus(), total: node.totalCpus() },
    memory: { used: node.usedMemory(), total: node.totalMemory() },
    ...(slotsOf(labels) === undefined ? {} : { slots: slotsOf(labels) }),
    containers,
  };
}
