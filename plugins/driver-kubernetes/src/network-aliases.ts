import { createHash } from 'node:crypto';
import type * as k8s from '@kubernetes/client-node';
import type { ContainerConfig, Logger, Network, NetworkCreateRequest, NetworkInventory, NetworkManagement, Node } from '@swarm/plugin-sdk';
import { KubernetesErrors } from './errors.js';
import { apiStatus, type KubeApi } from './kube-api.js';
import { PodMarks } from './labels.js';
import type { PodContainer } from './pod-container.js';
import { isDnsLabel } from './pod-names.js';

const DNS_1035 = /^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/;
const NETWORK_CONFIGMAP = 'swarm.io/network';
const SHARED_MODES = new Set(['', 'default', 'bridge', 'host']);

interface StoredNetwork {
  id: string;
  name: string;
  driver: string;
  labels: Record<string, string>;
  created: string;
}

/**
 * User-defined networks over one namespace. A namespace is one flat network, so a docker network
 * is a record (a ConfigMap, so a restarted manager finds it) and what it buys is names: every
 * container answers to its name and its network aliases (compose service names) through a
 * headless Service per alias that selects the pods carrying that alias's label. Containers on
 * different docker networks are not isolated from each other.
 */
export class NetworkAliases {
  private readonly networks = new Map<string, StoredNetwork>();

  constructor(
    private readonly api: KubeApi,
    private readonly logger: Logger,
  ) {}

  async load(): Promise<void> {
    const maps = await this.api.core.listNamespacedConfigMap({ namespace: this.api.namespace, labelSelector: `${NETWORK_CONFIGMAP}=true` });
    this.networks.clear();
    for (const map of maps.items) {
      const raw = map.data?.['network'];
      if (!raw) continue;
      try {
        const stored = JSON.parse(raw) as StoredNetwork;
        this.networks.set(stored.name, stored);
      } catch {
        this.logger.warn({ configMap: map.metadata?.name }, 'kubernetes: unreadable network record');
      }
    }
  }

  private asNetwork(stored: StoredNetwork, node: Node): Network {
    return {
      id: stored.id,
      name: stored.name,
      scope: 'swarm',
      node,
      summary: {
        Id: stored.id,
        Name: stored.name,
        Created: stored.created,
        Scope: 'swarm',
        Driver: stored.driver,
        EnableIPv6: false,
        IPAM: { Driver: 'default', Options: null, Config: [] },
        Internal: false,
        Attachable: true,
        Ingress: false,
        ConfigFrom: { Network: '' },
        ConfigOnly: false,
        Containers: {},
        Options: {},
        Labels: stored.labels,
      },
    };
  }

  private builtin(node: Node): Network {
    return this.asNetwork(
      { id: createHash('sha256').update('bridge').digest('hex'), name: 'bridge', driver: 'bridge', labels: {}, created: '' },
      node,
    );
  }

  inventory(nodes: () => readonly Node[]): NetworkInventory {
    const list = (): Network[] => {
      const anchor = nodes()[0];
      if (!anchor) return [];
      return [this.builtin(anchor), ...[...this.networks.values()].map((stored) => this.asNetwork(stored, anchor))];
    };
    return {
      list,
      find: (idOrName) => {
        const all = list();
        return (
          all.find((network) => network.id === idOrName || network.name === idOrName) ??
          (() => {
            const prefixed = all.filter((network) => network.id.startsWith(idOrName));
            return prefixed.length === 1 ? prefixed[0] : undefined;
          })()
        );
      },
    };
  }

  management(nodes: () => readonly Node[]): NetworkManagement {
    return {
      create: async (request: NetworkCreateRequest) => {
        const anchor = nodes()[0];
        if (!anchor) throw KubernetesErrors.noNodeChosen();
        if (this.networks.has(request.Name) || request.Name === 'bridge') {
          throw KubernetesErrors.apiRefused(
            { status: 409, what: 'network create', message: `network with name ${request.Name} already exists` },
            { httpStatus: 409 },
          );
        }
        const stored: StoredNetwork = {
          id: createHash('sha256').update(`${request.Name}/${Date.now()}/${Math.random()}`).digest('hex'),
          name: request.Name,
          driver: request.Driver || 'bridge',
          labels: (request['Labels'] as Record<string, string> | undefined) ?? {},
          created: new Date().toISOString(),
        };
        const map: k8s.V1ConfigMap = {
          metadata: { name: `swarm-network-${stored.id.slice(0, 12)}`, labels: { [NETWORK_CONFIGMAP]: 'true' } },
          data: { network: JSON.stringify(stored) },
        };
        await this.api.core.createNamespacedConfigMap({ namespace: this.api.namespace, body: map });
        this.networks.set(stored.name, stored);
        return this.asNetwork(stored, anchor);
      },
      remove: async (network: Network) => {
        if (network.name === 'bridge') {
          throw KubernetesErrors.apiRefused(
            { status: 403, what: 'network rm', message: 'bridge is a pre-defined network and cannot be removed' },
            { httpStatus: 403 },
          );
        }
        await this.api.core
          .deleteNamespacedConfigMap({ name: `swarm-network-${network.id.slice(0, 12)}`, namespace: this.api.namespace })
          .catch((error: unknown) => {
            if (apiStatus(error) !== 404) throw error;
          });
        this.networks.delete(network.name);
      },
    };
  }

  /** `GET /networks/{id}` as an engine answers it, for the engine façade; undefined when unknown. */
  inspectJson(idOrName: string, node: Node, containers: readonly PodContainer[]): Record<string, unknown> | undefined {
    const all = [this.builtin(node), ...[...this.networks.values()].map((stored) => this.asNetwork(stored, node))];
    const network =
      all.find((candidate) => candidate.id === idOrName || candidate.name === idOrName) ??
      all.find((candidate) => candidate.id.startsWith(idOrName));
    if (!network) return undefined;
    const members: Record<string, unknown> = {};
    for (const container of containers) {
      const mode = String(container.config.HostConfig?.NetworkMode ?? 'default');
      const joined = mode === network.name || ((mode === 'default' || mode === '' || mode === 'bridge') && network.name === 'bridge');
      if (!joined) continue;
      const ip = container.pod.status?.podIP ?? '';
      members[container.id] = {
        Name: container.name,
        EndpointID: container.podName,
        MacAddress: '',
        IPv4Address: ip ? `${ip}/32` : '',
        IPv6Address: '',
      };
    }
    return { ...network.summary, Containers: members };
  }

  /** The names a container answers to: its own, and its aliases on every network it joins. */
  aliasesFor(config: ContainerConfig, dockerName: string): string[] {
    const endpoints = ((config['NetworkingConfig'] as { EndpointsConfig?: Record<string, { Aliases?: string[] | null }> } | undefined)
      ?.EndpointsConfig ?? {}) as Record<string, { Aliases?: string[] | null }>;
    // as with docker, names resolve on user-defined networks only
    const mode = String(config.HostConfig?.NetworkMode ?? '');
    if (SHARED_MODES.has(mode)) return [];
    const names = new Set<string>([dockerName]);
    for (const endpoint of Object.values(endpoints)) for (const alias of endpoint.Aliases ?? []) names.add(alias);
    return [...names].filter((name) => isDnsLabel(name));
  }

  /** The pod labels that make a pod answer to these names. */
  aliasLabels(names: readonly string[]): Record<string, string> {
    const labels: Record<string, string> = {};
    for (const name of names) if (isDnsLabel(name)) labels[`${PodMarks.aliasPrefix}${name}`] = 'true';
    return labels;
  }

  /** A headless Service per alias (DNS-1035 names only), so other pods resolve the alias to this pod. */
  async ensureServices(config: ContainerConfig, dockerName: string): Promise<void> {
    await this.ensureAliasServices(this.aliasesFor(config, dockerName));
  }

  async ensureAliasServices(aliases: readonly string[]): Promise<void> {
    for (const alias of aliases) {
      if (!DNS_1035.test(alias)) continue;
      const service: k8s.V1Service = {
        metadata: { name: alias, labels: { [PodMarks.service]: 'true' } },
        spec: { clusterIP: 'None', selector: { [`${PodMarks.aliasPrefix}${alias}`]: 'true' }, publishNotReadyAddresses: true },
      };
      await this.api.createService(service).catch((error: unknown) => {
        if (apiStatus(error) !== 409) throw error;
      });
    }
  }

  /**
   * Deletes the alias Services no remaining container answers to. Only swarm's own: a Service of
   * the same name that the user made (ensureAliasServices left it alone on the 409) stays.
   */
  async releaseServices(config: ContainerConfig, dockerName: string, remaining: readonly PodContainer[]): Promise<void> {
    for (const alias of this.aliasesFor(config, dockerName)) {
      if (!DNS_1035.test(alias)) continue;
      const label = `${PodMarks.aliasPrefix}${alias}`;
      if (remaining.some((container) => container.pod.metadata?.labels?.[label] === 'true')) continue;
      await this.releaseService(alias).catch((error: unknown) => {
        if (apiStatus(error) !== 404 && apiStatus(error) !== 409)
          this.logger.warn({ service: alias, err: (error as Error).message }, 'kubernetes: alias service not removed');
      });
    }
  }

  private async releaseService(alias: string): Promise<void> {
    const service = await this.api.readService(alias);
    const uid = service.metadata?.uid;
    if (service.metadata?.labels?.[PodMarks.service] !== 'true' || !uid) return;
    await this.api.deleteService(alias, uid);
  }
}
