import { KubernetesDouble, type KubernetesDoubleOptions } from './double.js';

export {
  KubernetesDouble,
  type KubernetesDoubleOptions,
  type NodeSpec,
  type ClientUser,
  type DenyRule,
  type UserInfo,
  type MetricsMode,
} from './double.js';
export type { EngineNodeOptions } from './kubelet/engine-kubelet.js';

/** Starts a Kubernetes API server double (see README.md) and waits until it serves. */
export async function startKubernetesDouble(options: KubernetesDoubleOptions = {}): Promise<KubernetesDouble> {
  const double = new KubernetesDouble(options);
  try {
    await double.start();
  } catch (error) {
    await double.stop();
    throw error;
  }
  return double;
}
