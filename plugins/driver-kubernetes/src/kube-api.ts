import * as k8s from '@kubernetes/client-node';
import { KubernetesErrors } from './errors.js';
import type { KubernetesOptions } from './options.js';

/** The API server's answer to a failed call, as a coded error keeping its HTTP status where Docker has the same one. */
export function apiError(error: unknown, what: string, server: string): Error {
  if (error instanceof k8s.ApiException) {
    const status = error.code;
    let message = String(error.message);
    try {
      const body: unknown = typeof error.body === 'string' ? JSON.parse(error.body) : error.body;
      const text = (body as { message?: unknown } | undefined)?.message;
      if (typeof text === 'string' && text !== '') message = text;
      else message = `${message} (HTTP ${status})`;
    } catch {
      // not a Status body: keep the client's text
      message = `${message} (HTTP ${status})`;
    }
    if (status === 403) message = `${message}; the manager's user lacks this permission (the driver README lists the RBAC it needs)`;
    const httpStatus = status === 404 || status === 409 ? status : status === 400 || status === 422 ? 400 : 500;
    return KubernetesErrors.apiRefused({ status, message, what }, { httpStatus, cause: error, details: { kubernetesStatus: status } });
  }
  const reason = error instanceof Error ? error.message : String(error);
  return KubernetesErrors.apiUnreachable({ server, why: reason }, { cause: error });
}

/** The HTTP status a failed API call got, if it got an answer. */
export function apiStatus(error: unknown): number | undefined {
  if (error instanceof k8s.ApiException) return error.code;
  const details = (error as { details?: { kubernetesStatus?: unknown } } | undefined)?.details;
  return typeof details?.kubernetesStatus === 'number' ? details.kubernetesStatus : undefined;
}

/**
 * Credentials as kubectl finds them: the kubeconfig option (or the discovery argument), then
 * $KUBECONFIG, then the pod's service account, then ~/.kube/config.
 */
export function loadKubeConfig(options: KubernetesOptions, env: Readonly<Record<string, string | undefined>>): k8s.KubeConfig {
  const config = new k8s.KubeConfig();
  const source = options.kubeconfig ?? env['KUBECONFIG'];
  try {
    if (source) config.loadFromFile(source.split(':')[0]!);
    else if (env['KUBERNETES_SERVICE_HOST']) config.loadFromCluster();
    else config.loadFromDefault();
  } catch (error) {
    throw KubernetesErrors.kubeconfig({ source: source ?? 'in the default places', why: (error as Error).message }, { cause: error });
  }
  if (options.context) {
    if (!config.getContexts().some((context) => context.name === options.context)) {
      const known = config.getContexts().map((context) => context.name);
      throw KubernetesErrors.kubeconfig({
        source: source ?? '(default)',
        why: `no context "${options.context}" (it has: ${known.join(', ') || 'none'})`,
      });
    }
    config.setCurrentContext(options.context);
  }
  if (!config.getCurrentCluster()) throw KubernetesErrors.noCredentials();
  return config;
}

/** The calls the driver makes, each turning the API server's refusal into a coded error. */
export class KubeApi {
  readonly core: k8s.CoreV1Api;
  readonly server: string;

  constructor(
    readonly config: k8s.KubeConfig,
    readonly namespace: string,
  ) {
    this.core = config.makeApiClient(k8s.CoreV1Api);
    this.server = config.getCurrentCluster()?.server ?? '(unknown)';
  }

  private async call<T>(what: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw apiError(error, what, this.server);
    }
  }

  createPod(pod: k8s.V1Pod): Promise<k8s.V1Pod> {
    return this.call(`create pod ${pod.metadata?.name}`, () => this.core.createNamespacedPod({ namespace: this.namespace, body: pod }));
  }

  readPod(name: string): Promise<k8s.V1Pod> {
    return this.call(`read pod ${name}`, () => this.core.readNamespacedPod({ name, namespace: this.namespace }));
  }

  bindPod(name: string, node: string): Promise<unknown> {
    return this.call(`bind pod ${name} to ${node}`, () =>
      this.core.createNamespacedPodBinding({
        name,
        namespace: this.namespace,
        body: { apiVersion: 'v1', kind: 'Binding', metadata: { name }, target: { apiVersion: 'v1', kind: 'Node', name: node } },
      }),
    );
  }

  /** Graceful deletion: the kubelet stops the containers within the grace period. */
  deletePod(name: string, gracePeriodSeconds: number, uid?: string): Promise<unknown> {
    const body: k8s.V1DeleteOptions = { gracePeriodSeconds };
    if (uid) body.preconditions = { uid };
    return this.call(`delete pod ${name}`, () =>
      this.core.deleteNamespacedPod({ name, namespace: this.namespace, gracePeriodSeconds, body }),
    );
  }

  /** JSON merge patch of a pod's metadata (finalizers, annotations). */
  patchPodMetadata(name: string, metadata: Record<string, unknown>): Promise<k8s.V1Pod> {
    return this.call(`update pod ${name}`, () =>
      this.core.patchNamespacedPod(
        { name, namespace: this.namespace, body: { metadata } },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
      ),
    );
  }

  listPods(labelSelector: string): Promise<k8s.V1PodList> {
    return this.call('list pods', () => this.core.listNamespacedPod({ namespace: this.namespace, labelSelector }));
  }

  listNodes(): Promise<k8s.V1NodeList> {
    return this.call('list nodes', () => this.core.listNode());
  }

  createService(service: k8s.V1Service): Promise<k8s.V1Service> {
    return this.call(`create service ${service.metadata?.name}`, () =>
      this.core.createNamespacedService({ namespace: this.namespace, body: service }),
    );
  }

  /**
   * Services by label, optionally one name: a list (not a get), so the manager needs no more than
   * the `list` its RBAC already grants on services.
   */
  listServices(labelSelector: string, name?: string): Promise<k8s.V1ServiceList> {
    return this.call('list services', () =>
      this.core.listNamespacedService({
        namespace: this.namespace,
        labelSelector,
        ...(name === undefined ? {} : { fieldSelector: `metadata.name=${name}` }),
      }),
    );
  }

  /** The namespace's `kube-root-ca.crt`, which the control plane publishes into every namespace as it is made. */
  listRootCaConfigMap(): Promise<k8s.V1ConfigMapList> {
    return this.call('list configmaps', () =>
      this.core.listNamespacedConfigMap({ namespace: this.namespace, fieldSelector: 'metadata.name=kube-root-ca.crt' }),
    );
  }

  /** Deletes the Service only if it is still the object with this UID (not one created since under the name). */
  deleteService(name: string, uid: string): Promise<unknown> {
    return this.call(`delete service ${name}`, () =>
      this.core.deleteNamespacedService({ name, namespace: this.namespace, body: { preconditions: { uid } } }),
    );
  }

  createClaim(claim: k8s.V1PersistentVolumeClaim): Promise<k8s.V1PersistentVolumeClaim> {
    return this.call(`create claim ${claim.metadata?.name}`, () =>
      this.core.createNamespacedPersistentVolumeClaim({ namespace: this.namespace, body: claim }),
    );
  }
}
