import { createHash } from 'node:crypto';
import type * as k8s from '@kubernetes/client-node';
import type { Logger, Network, NetworkInventory, NetworkManagement, Node } from '@swarm/plugin-sdk';
import type { NetworkCreateRequest } from '@swarm/plugin-sdk/docker';
import { KubernetesErrors } from './errors.js';
import { apiStatus, type KubeApi } from './kube-api.js';
import { PodMarks } from './labels.js';
import { aliasLabel } from './network-membership.js';
import type { PodContainer } from './pod-container.js';

const DNS_1035 = /^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/;
const NETWORK_CONFIGMAP = 'swarm.io/network';

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
 * headless Service per alias that selects the pods carrying that alias's label; the Service goes
 * when the last container answering to the alias does. Containers on different docker networks are
 * not isolated from each other.
 */
export class NetworkAliases {
  private readonly networks = new Map<string, StoredNetwork>();
  /** Names some container is about to answer to (see `hold`). */
  private readonly held = new Map<string, number>();
  /** The tail of each name's Service operations. */
  private readonly queues = new Map<string, Promise<void>>();
  /** When the built-in `bridge` network was created: the namespace's, once known (see `load`). */
  private bridgeCreated = new Date().toISOString();

  constructor(
    private readonly api: KubeApi,
    private readonly logger: Logger,
  ) {}

  async load(): Promise<void> {
    await this.api
      .listRootCaConfigMap()
      .then((maps) => {
        const created = maps.items[0]?.metadata?.creationTimestamp;
        if (created) this.bridgeCreated = new Date(created).toISOString();
      })
      .catch(() => undefined); // keep the time this manager first saw the namespace
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
      {
        id: createHash('sha256').update('bridge').digest('hex'),
        name: 'bridge',
        driver: 'bridge',
        labels: {},
        created: this.bridgeCreated,
      },
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

  /** The name of a network given by ID, ID prefix or name; undefined when unknown. */
  nameOf(idOrName: string, node: Node): string | undefined {
    return this.inventory(() => [node]).find(idOrName)?.name;
  }

  /** `GET /networks/{id}` as an engine answers it, for the engine emulator; undefined when unknown. */
  inspectJson(idOrName: string, node: Node, containers: readonly PodContainer[]): Record<string, unknown> | undefined {
    const all = [this.builtin(node), ...[...this.networks.values()].map((stored) => this.asNetwork(stored, node))];
    const network =
      all.find((candidate) => candidate.id === idOrName || candidate.name === idOrName) ??
      all.find((candidate) => candidate.id.startsWith(idOrName));
    if (!network) return undefined;
    const members: Record<string, unknown> = {};
    for (const container of containers) {
      if (!container.memberships.has(network.name)) continue;
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

  /**
   * Holds names while a container that will answer to them is being made or connected: a release
   * running meanwhile (another container with the same alias going) keeps their Services.
   */
  hold(names: readonly string[]): () => void {
    for (const name of names) this.held.set(name, (this.held.get(name) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      for (const name of names) {
        const left = (this.held.get(name) ?? 1) - 1;
        if (left > 0) this.held.set(name, left);
        else this.held.delete(name);
      }
    };
  }

  /** A headless Service per name (DNS-1035 names only), so other pods resolve the name to the pods labelled with it. */
  async ensureServices(names: readonly string[]): Promise<void> {
    for (const name of names) {
      if (!DNS_1035.test(name)) continue;
      await this.serialized(name, async () => {
        const service: k8s.V1Service = {
          metadata: { name, labels: { [PodMarks.service]: 'true' } },
          spec: { clusterIP: 'None', selector: { [aliasLabel(name)]: 'true' }, publishNotReadyAddresses: true },
        };
        await this.api.createService(service).catch((error: unknown) => {
          if (apiStatus(error) !== 409) throw error;
        });
      });
    }
  }

  /**
   * Deletes the Services of these names that no container answers to any more (`needed` says which
   * still do). Only swarm's own: a Service of the same name that the user made (ensureServices left
   * it alone on the 409) stays.
   */
  async releaseServices(names: readonly string[], needed: (name: string) => boolean): Promise<void> {
    for (const name of names) {
      if (!DNS_1035.test(name)) continue;
      await this.serialized(name, async () => {
        if (this.held.has(name) || needed(name)) return;
        await this.deleteOwnService(name);
      }).catch((error: unknown) => {
        this.logger.warn({ service: name, err: (error as Error).message }, 'kubernetes: alias service not removed');
      });
    }
  }

  /**
   * After a restart: deletes swarm's alias Services that no container answers to, which a manager
   * stopped between a container's removal and its Service's left behind. A Service younger than
   * `graceMs` is left alone: another manager may be making the container it is for.
   */
  async sweep(needed: (name: string) => boolean, graceMs: number): Promise<string[]> {
    const services = await this.api.listServices(`${PodMarks.service}=true`);
    const stale = services.items
      .map((service) => ({ name: service.metadata?.name ?? '', created: Date.parse(String(service.metadata?.creationTimestamp ?? '')) }))
      .filter(({ name, created }) => name !== '' && !(Date.now() - created < graceMs));
    await this.releaseServices(
      stale.map(({ name }) => name),
      needed,
    );
    return stale.map(({ name }) => name).filter((name) => !this.held.has(name) && !needed(name));
  }

  private async deleteOwnService(name: string): Promise<void> {
    const found = await this.api.listServices(`${PodMarks.service}=true`, name);
    for (const service of found.items) {
      const uid = service.metadata?.uid;
      if (!uid) continue;
      await this.api.deleteService(name, uid).catch((error: unknown) => {
        // gone already, or replaced by another object under the name since the list
        if (apiStatus(error) !== 404 && apiStatus(error) !== 409) throw error;
      });
    }
  }

  /** Runs `task` after every earlier task for the same name, so a create and a delete of one Service never interleave. */
  private serialized(name: string, task: () => Promise<void>): Promise<void> {
    const previous = this.queues.get(name) ?? Promise.resolve();
    const run = previous.then(task, task);
    const settled = run.catch(() => undefined);
    this.queues.set(name, settled);
    void settled.then(() => {
      if (this.queues.get(name) === settled) this.queues.delete(name);
    });
    return run;
  }
}
