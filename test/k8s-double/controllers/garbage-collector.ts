// The garbage collector, background propagation only: when an object goes, the objects that
// name it in their ownerReferences are deleted too (a Node's Lease, a Service's EndpointSlices).
import type { Registry } from '../api/registry.js';
import { ApiError } from '../api/status.js';
import { RESOURCES, storeName, type ResourceDef } from '../model/resources.js';
import { keyOf, type KObject } from '../store/store.js';

export class GarbageCollector {
  /** owner uid → dependents (resource def and key). */
  private readonly dependents = new Map<string, Map<string, ResourceDef>>();
  private unsubscribe: Array<() => void> = [];

  constructor(private readonly registry: Registry) {}

  start(): void {
    for (const def of RESOURCES) {
      if (def.virtual) continue;
      const name = storeName(def);
      this.unsubscribe.push(
        this.registry.store.subscribe(name, (event) => {
          const id = `${name}\u0000${keyOf(event.object)}`;
          for (const ref of event.previous?.metadata.ownerReferences ?? []) this.dependents.get(ref.uid)?.delete(id);
          if (event.type === 'DELETED') return;
          for (const ref of event.object.metadata.ownerReferences ?? []) {
            let set = this.dependents.get(ref.uid);
            if (!set) this.dependents.set(ref.uid, (set = new Map()));
            set.set(id, def);
          }
        }),
      );
    }
    this.registry.onRemoved = (_def, object) => this.collect(object);
  }

  stop(): void {
    for (const unsubscribe of this.unsubscribe) unsubscribe();
    this.registry.onRemoved = () => {};
  }

  private collect(owner: KObject): void {
    const dependents = this.dependents.get(owner.metadata.uid ?? '');
    if (!dependents) return;
    this.dependents.delete(owner.metadata.uid!);
    setImmediate(() => {
      for (const [id, def] of dependents) {
        const key = id.split('\u0000')[1]!;
        const [namespace, name] = def.namespaced ? key.split('/') : [undefined, key];
        try {
          this.registry.delete(def, namespace, name!);
        } catch (error) {
          if (!(error instanceof ApiError)) throw error;
        }
      }
    });
  }
}
