// core/v1 Events as client-go's event recorder writes them: named <object>.<hex time>, and a
// repeat of the same event (same object, reason, message and source) raises its count instead.
import { randomBytes, randomUUID } from 'node:crypto';
import { now } from '../model/time.js';
import type { KObject, Store } from '../store/store.js';

export interface EventSource {
  component: string;
  host?: string;
}

interface Recent {
  key: string;
  name: string;
  namespace: string;
  at: number;
}

const AGGREGATE_WINDOW_MS = 10 * 60 * 1000;

export class EventRecorder {
  private readonly recent = new Map<string, Recent>();

  constructor(private readonly store: Store) {}

  record(object: KObject, type: 'Normal' | 'Warning', reason: string, message: string, source: EventSource, fieldPath?: string): void {
    const namespace = object.metadata.namespace || 'default';
    const key = [object.metadata.uid, fieldPath ?? '', reason, message, source.component, source.host ?? ''].join('\u0000');
    const previous = this.recent.get(key);
    if (previous && Date.now() - previous.at < AGGREGATE_WINDOW_MS) {
      const existing = this.store.get('events', `${previous.namespace}/${previous.name}`);
      if (existing) {
        existing.count = ((existing.count as number | undefined) ?? 1) + 1;
        existing.lastTimestamp = now();
        this.store.put('events', existing);
        previous.at = Date.now();
        return;
      }
    }
    const name = `${object.metadata.name}.${(BigInt(Date.now()) * 1_000_000n + BigInt(randomBytes(2).readUInt16BE())).toString(16)}`;
    const involvedObject: Record<string, string> = {
      kind: object.kind ?? '',
      name: object.metadata.name,
      uid: object.metadata.uid ?? '',
      apiVersion: object.apiVersion ?? 'v1',
      resourceVersion: object.metadata.resourceVersion ?? '',
    };
    if (object.metadata.namespace) involvedObject.namespace = object.metadata.namespace;
    if (fieldPath) involvedObject.fieldPath = fieldPath;
    const event: KObject = {
      kind: 'Event',
      apiVersion: 'v1',
      metadata: { name, namespace, uid: randomUUID(), creationTimestamp: now() },
      involvedObject,
      reason,
      message,
      source: source.host ? { component: source.component, host: source.host } : { component: source.component },
      firstTimestamp: now(),
      lastTimestamp: now(),
      count: 1,
      type,
      eventTime: null,
      reportingComponent: source.component,
      reportingInstance: source.host ?? '',
    };
    this.store.put('events', event);
    this.recent.set(key, { key, name, namespace, at: Date.now() });
    if (this.recent.size > 10_000) this.recent.delete(this.recent.keys().next().value!);
  }
}
