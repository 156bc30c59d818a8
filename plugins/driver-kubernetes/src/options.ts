import { existsSync } from 'node:fs';
import { KubernetesErrors } from './errors.js';

/** How a docker named volume (`-v name:/path`) becomes a pod volume. */
export type NamedVolumeMode = 'emptyDir' | 'persistentVolumeClaim';

/** The driver's `--cluster-opt kubernetes.*` settings. */
export interface KubernetesOptions {
  /** A kubeconfig file; undefined: $KUBECONFIG, then in-cluster credentials, then ~/.kube/config. */
  kubeconfig?: string;
  context?: string;
  namespace: string;
  namedVolumes: NamedVolumeMode;
  /** Storage class of the claims made for named volumes (the cluster's default when absent). */
  storageClass?: string;
  /** Size asked for a named volume's claim. */
  volumeSize: string;
}

type RawOptions = Readonly<Record<string, string>>;

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/**
 * Reads the options. The positional discovery argument may be `k8s://` (the
 * API server is the discovery) or a kubeconfig path; it is optional.
 */
export function parseKubernetesOptions(options: RawOptions, discovery: string): KubernetesOptions {
  const parsed: KubernetesOptions = {
    namespace: options['kubernetes.namespace'] ?? 'default',
    namedVolumes: 'emptyDir',
    volumeSize: options['kubernetes.volumesize'] ?? '1Gi',
  };
  if (!DNS_LABEL.test(parsed.namespace) || parsed.namespace.length > 63) {
    throw KubernetesErrors.clusterOption({
      key: 'kubernetes.namespace',
      value: parsed.namespace,
      why: 'a namespace is a DNS label: lower-case letters, digits and "-", at most 63',
    });
  }
  const volumes = options['kubernetes.volumes'];
  if (volumes !== undefined) {
    const mode = { emptydir: 'emptyDir', pvc: 'persistentVolumeClaim', persistentvolumeclaim: 'persistentVolumeClaim' }[
      volumes.toLowerCase()
    ] as NamedVolumeMode | undefined;
    if (!mode) throw KubernetesErrors.clusterOption({ key: 'kubernetes.volumes', value: volumes, why: 'use emptyDir or pvc' });
    parsed.namedVolumes = mode;
  }
  if (!/^\d+(\.\d+)?(Ki|Mi|Gi|Ti|k|M|G|T)?$/.test(parsed.volumeSize)) {
    throw KubernetesErrors.clusterOption({
      key: 'kubernetes.volumesize',
      value: parsed.volumeSize,
      why: 'use a quantity such as 1Gi or 500Mi',
    });
  }
  const storageClass = options['kubernetes.storageclass'];
  if (storageClass) parsed.storageClass = storageClass;
  const context = options['kubernetes.context'];
  if (context) parsed.context = context;
  const kubeconfig = options['kubernetes.kubeconfig'] ?? kubeconfigFromDiscovery(discovery);
  if (kubeconfig !== undefined) {
    if (!existsSync(kubeconfig)) {
      throw KubernetesErrors.clusterOption({ key: 'kubernetes.kubeconfig', value: kubeconfig, why: 'no such file' });
    }
    parsed.kubeconfig = kubeconfig;
  }
  return parsed;
}

function kubeconfigFromDiscovery(discovery: string): string | undefined {
  if (discovery === '' || discovery === 'k8s://') return undefined;
  if (discovery.startsWith('k8s://')) return discovery.slice('k8s://'.length);
  if (discovery.includes('://')) {
    throw KubernetesErrors.clusterOption({
      key: 'discovery',
      value: discovery,
      why: 'the kubernetes driver finds its nodes through the API server: give no discovery, k8s://, or a kubeconfig path',
    });
  }
  return discovery;
}
