import type { DeploymentConfig, Discovery, DiscoveryBackend, LeaderElection } from '@swarm/plugin-sdk';
import { KubernetesErrors } from './errors.js';
import { loadKubeConfig } from './kube-api.js';
import { LeaseElection } from './lease-election.js';
import { parseKubernetesOptions } from './options.js';

/**
 * `k8s://` as a discovery: the driver finds its nodes through the API server,
 * so this finds no engines and takes no registrations (nodes join through their kubelet; `swarm
 * join` refuses it); it is what replicated managers elect their primary through, on a Lease in the
 * driver's namespace (`swarm manage -c kubernetes --replication ... k8s://`).
 */
export class KubernetesDiscovery implements DiscoveryBackend {
  readonly scheme = 'k8s';

  constructor(private readonly config: DeploymentConfig) {}

  open(): Discovery {
    if (this.config.cluster.driver !== 'kubernetes') {
      throw KubernetesErrors.discoveryWithoutDriver({ driver: this.config.cluster.driver });
    }
    const options = parseKubernetesOptions(this.config.cluster.options, this.config.cluster.discovery);
    const kubeConfig = loadKubeConfig(options, process.env);
    return {
      watch: (onEntries) => {
        onEntries([]);
        return { stop: () => undefined };
      },
      leadership: (key: string, ttlSeconds: number): LeaderElection =>
        new LeaseElection(kubeConfig, { namespace: options.namespace, key, ttlSeconds }),
      close: () => Promise.resolve(),
    };
  }
}
