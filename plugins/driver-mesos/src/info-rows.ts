import type { Offer } from './protocol.js';
import { formatResource } from './resources.js';

export interface InfoInputs {
  strategy: string;
  filters: readonly string[];
  offers: readonly Offer[];
  master: string;
  discovery: string;
  frameworkId: string;
  status: string;
}

/** Swarm classic's `docker info` rows for Mesos, then the master, framework and stream status. */
export function infoRows(inputs: InfoInputs): Array<[string, string]> {
  const rows: Array<[string, string]> = [
    ['Strategy', inputs.strategy],
    ['Filters', inputs.filters.join(', ')],
    ['Offers', String(inputs.offers.length)],
  ];
  const sorted = [...inputs.offers].sort((a, b) => a.id.value.localeCompare(b.id.value));
  for (const offer of sorted) {
    rows.push(['  Offer', offer.id.value]);
    for (const resource of offer.resources) rows.push([`   └ ${resource.name}`, formatResource(resource)]);
  }
  rows.push(
    ['Mesos Discovery', inputs.discovery],
    ['Mesos Master', inputs.master],
    ['Mesos Framework ID', inputs.frameworkId],
    ['Mesos Status', inputs.status],
  );
  return rows;
}
