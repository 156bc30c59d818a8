import { bytesSize } from '@swarm/plugin-sdk/helpers';
import type { Offer, Range, Resource } from './protocol.js';

export function scalarSum(offers: readonly Offer[], name: string): number {
  let total = 0;
  for (const offer of offers) {
    for (const resource of offer.resources) if (resource.name === name && resource.scalar) total += resource.scalar.value;
  }
  return total;
}

export function portRanges(offers: readonly Offer[]): Range[] {
  const ranges: Range[] = [];
  for (const offer of offers) {
    for (const resource of offer.resources) if (resource.name === 'ports' && resource.ranges) ranges.push(...resource.ranges.range);
  }
  return ranges;
}

export function scalar(name: string, value: number, role?: string): Resource {
  return role && role !== '*' ? { name, type: 'SCALAR', scalar: { value }, role } : { name, type: 'SCALAR', scalar: { value } };
}

export function portsResource(ports: readonly number[], role?: string): Resource {
  const resource: Resource = { name: 'ports', type: 'RANGES', ranges: { range: ports.map((port) => ({ begin: port, end: port })) } };
  if (role && role !== '*') resource.role = role;
  return resource;
}

/** A resource as Swarm classic prints it under an offer in `docker info`. */
export function formatResource(resource: Resource): string {
  if (resource.type === 'SCALAR' && resource.scalar) {
    if (resource.name === 'mem' || resource.name === 'disk') return bytesSize(resource.scalar.value * 1024 * 1024);
    return String(resource.scalar.value);
  }
  if (resource.type === 'RANGES' && resource.ranges) return resource.ranges.range.map((range) => `${range.begin}-${range.end}`).join(', ');
  if (resource.type === 'SET' && resource.set) return resource.set.item.join(', ');
  return '';
}
