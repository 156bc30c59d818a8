// Legacy discovery documents (/api, /api/v1, /apis, /apis/GROUP, /apis/GROUP/VERSION) and /version.
// Aggregated discovery is not served: clients that ask for it (kubectl 1.26+) get the legacy
// documents with a plain application/json type and fall back to them, as against older servers.
import { createHash } from 'node:crypto';
import { RESOURCES, type ResourceDef } from '../model/resources.js';

export const KUBERNETES_VERSION = { major: '1', minor: '32', gitVersion: 'v1.32.4' };

export function versionInfo(): Record<string, string> {
  return {
    major: KUBERNETES_VERSION.major,
    minor: KUBERNETES_VERSION.minor,
    gitVersion: KUBERNETES_VERSION.gitVersion,
    gitCommit: '59526cd4867447956156ae3a602fcbac10a2c335',
    gitTreeState: 'clean',
    buildDate: '2025-04-22T16:02:27Z',
    goVersion: 'go1.23.6',
    compiler: 'gc',
    platform: 'linux/amd64',
  };
}

const storageVersionHash = (def: ResourceDef): string =>
  createHash('sha256').update(`${def.group}/${def.version}/${def.kind}`).digest('base64').slice(0, 11);

interface SubresourceEntry {
  name: string;
  kind: string;
  verbs: string[];
  group?: string;
  version?: string;
}

const SUBRESOURCES: Record<string, SubresourceEntry> = {
  status: { name: 'status', kind: '', verbs: ['get', 'patch', 'update'] },
  binding: { name: 'binding', kind: 'Binding', verbs: ['create'] },
  log: { name: 'log', kind: 'Pod', verbs: ['get'] },
  exec: { name: 'exec', kind: 'PodExecOptions', verbs: ['create', 'get'] },
  attach: { name: 'attach', kind: 'PodAttachOptions', verbs: ['create', 'get'] },
  eviction: { name: 'eviction', kind: 'Eviction', verbs: ['create'], group: 'policy', version: 'v1' },
};

export function servedResources(metricsServed: boolean): ResourceDef[] {
  return RESOURCES.filter((def) => !def.metrics || metricsServed);
}

export function resourceList(group: string, version: string, metricsServed: boolean): Record<string, unknown> | undefined {
  const defs = servedResources(metricsServed).filter((def) => def.group === group && def.version === version);
  if (defs.length === 0) return undefined;
  const resources: Record<string, unknown>[] = [];
  for (const def of defs) {
    const entry: Record<string, unknown> = {
      name: def.resource,
      singularName: def.singular,
      namespaced: def.namespaced,
      kind: def.kind,
      verbs: def.verbs,
    };
    if (def.shortNames) entry.shortNames = def.shortNames;
    if (def.categories) entry.categories = def.categories;
    if (!def.virtual) entry.storageVersionHash = storageVersionHash(def);
    resources.push(entry);
    for (const sub of def.subresources) {
      const known = SUBRESOURCES[sub]!;
      const subEntry: Record<string, unknown> = {
        name: `${def.resource}/${sub}`,
        singularName: '',
        namespaced: def.namespaced,
        kind: known.kind || def.kind,
        verbs: known.verbs,
      };
      if (known.group) subEntry.group = known.group;
      if (known.version) subEntry.version = known.version;
      resources.push(subEntry);
    }
    if (def.kind === 'Namespace')
      resources.push({ name: 'namespaces/finalize', singularName: '', namespaced: false, kind: 'Namespace', verbs: ['update'] });
  }
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: group ? `${group}/${version}` : version, resources };
}

export function apiVersions(serverAddress: string): Record<string, unknown> {
  return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }] };
}

function groupEntry(group: string, metricsServed: boolean): Record<string, unknown> | undefined {
  const versions = [
    ...new Set(
      servedResources(metricsServed)
        .filter((def) => def.group === group)
        .map((def) => def.version),
    ),
  ];
  if (versions.length === 0) return undefined;
  const list = versions.map((version) => ({ groupVersion: `${group}/${version}`, version }));
  return { name: group, versions: list, preferredVersion: list[0] };
}

export function apiGroupList(metricsListed: boolean): Record<string, unknown> {
  const groups = [...new Set(RESOURCES.filter((def) => def.group && (!def.metrics || metricsListed)).map((def) => def.group))];
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: groups.map((group) => groupEntry(group, true)) };
}

export function apiGroup(group: string, metricsListed: boolean): Record<string, unknown> | undefined {
  const entry = groupEntry(group, metricsListed);
  return entry && { kind: 'APIGroup', apiVersion: 'v1', ...entry };
}
