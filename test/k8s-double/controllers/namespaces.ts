// The namespace controllers: every namespace gets its `default` ServiceAccount and the
// `kube-root-ca.crt` ConfigMap (service account and root CA publishers), and a namespace being
// deleted has its content deleted, then its `kubernetes` finalizer removed, then goes.
import type { Json } from '../model/decode.js';
import { RESOURCES, storeName } from '../model/resources.js';
import type { Registry } from '../api/registry.js';
import { ApiError } from '../api/status.js';
import type { KObject, StoreEvent } from '../store/store.js';
import type { Loose } from '../model/loose.js';

export class NamespaceController {
  private readonly terminating = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly registry: Registry,
    private readonly caCertificate: string,
  ) {}

  start(): void {
    this.unsubscribe = this.registry.store.subscribe('namespaces', (event) => this.observe(event));
    for (const namespace of this.registry.store.values('namespaces')) this.populate(namespace);
    this.timer = setInterval(() => this.sweep(), 500);
  }

  stop(): void {
    this.unsubscribe?.();
    clearInterval(this.timer);
  }

  private observe(event: StoreEvent): void {
    if (event.type === 'ADDED') this.populate(event.object);
    if (event.type !== 'DELETED' && event.object.metadata.deletionTimestamp) this.terminating.add(event.object.metadata.name);
  }

  /** Creates what every namespace has, synchronously, so a pod created right after finds its service account. */
  private populate(namespace: KObject): void {
    const name = namespace.metadata.name;
    const create = (resource: string, body: Json) => {
      const def = RESOURCES.find((d) => storeName(d) === resource)!;
      try {
        this.registry.create(def, name, body);
      } catch (error) {
        if (!(error instanceof ApiError && error.code === 409)) throw error;
      }
    };
    if (!this.registry.store.peek('serviceaccounts', `${name}/default`)) create('serviceaccounts', { metadata: { name: 'default' } });
    if (!this.registry.store.peek('configmaps', `${name}/kube-root-ca.crt`)) {
      create('configmaps', {
        metadata: {
          name: 'kube-root-ca.crt',
          annotations: {
            'kubernetes.io/description':
              'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.',
          },
        },
        data: { 'ca.crt': this.caCertificate },
      });
    }
  }

  private sweep(): void {
    for (const name of [...this.terminating]) {
      const namespace = this.registry.store.peek('namespaces', name);
      if (!namespace) {
        this.terminating.delete(name);
        continue;
      }
      let remaining = 0;
      for (const def of RESOURCES) {
        if (!def.namespaced || def.virtual) continue;
        for (const object of this.registry.store.values(storeName(def), `${name}/`)) {
          remaining++;
          if (!object.metadata.deletionTimestamp) {
            try {
              this.registry.delete(def, name, object.metadata.name);
            } catch (error) {
              if (!(error instanceof ApiError)) throw error;
            }
          }
        }
      }
      if (remaining > 0) continue;
      const updated = structuredClone(namespace);
      (updated.spec as Loose).finalizers = [];
      if ((updated.metadata.finalizers ?? []).length === 0) this.registry.store.remove('namespaces', name);
      else this.registry.store.put('namespaces', updated);
      this.terminating.delete(name);
    }
  }
}
