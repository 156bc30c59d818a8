// The API server's generic registry: create, get, list, update, patch and delete with
// defaulting, admission, validation, resourceVersion preconditions, no-op updates that write
// nothing, finalizers, graceful pod deletion, continue tokens and resourceVersion list semantics.
import { randomUUID } from 'node:crypto';
import { decode, DecodeError, type Json, type JsonObject } from '../model/decode.js';
import { DEFAULTERS } from '../model/defaults.js';
import { generateName } from '../model/names.js';
import { apiVersionOf, selectableFields, storeName, supportedFields, type ResourceDef } from '../model/resources.js';
import { parseFieldSelector, parseLabelSelector, SelectorError } from '../model/selectors.js';
import { formatTime, now } from '../model/time.js';
import { validateCreate, validateObjectMeta, validateUpdate } from '../model/validation.js';
import { asJson, ExpiredError, keyOf, objectKey, type KObject, type Store } from '../store/store.js';
import { Admission } from './admission.js';
import { jsonPatch, mergePatch, PatchError, strategicMergePatch } from './patch.js';
import { ApiError, errors, type GroupResource } from './status.js';
import { allowCreateOnUpdate, allowUnconditionalUpdate, resourceVersionRequired } from './update-strategy.js';
import type { Loose } from '../model/loose.js';

export interface WriteOptions {
  dryRun?: boolean;
  /** Strict refuses unknown fields, Warn (the default) drops them with a warning, Ignore drops them silently. */
  fieldValidation?: 'Strict' | 'Warn' | 'Ignore';
  /** Filled with the API server's warnings (e.g. `unknown field "spec.foo"`). */
  warnings?: string[];
}

export interface ListOptions {
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  resourceVersionMatch?: string;
}

export interface DeleteOptions {
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
  propagationPolicy?: string;
  dryRun?: boolean;
}

export type PatchType = 'json' | 'merge' | 'strategic' | 'apply';

export interface ListResult {
  /** Stored objects, not copies: read-only. */
  items: readonly KObject[];
  resourceVersion: string;
  continue?: string;
  remainingItemCount?: number;
}

const groupResource = (def: ResourceDef): GroupResource => ({ group: def.group, resource: def.resource });
const stable = (value: unknown): string =>
  JSON.stringify(value, (_, v) => (v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort()) : v));

function withoutVersion(object: KObject): string {
  return stable({ ...object, metadata: { ...object.metadata, resourceVersion: undefined } });
}

interface ContinueToken {
  rv: number;
  start: string;
}

const encodeContinue = (token: ContinueToken): string =>
  Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: token.rv, start: token.start })).toString('base64url');

function decodeContinue(text: string): ContinueToken {
  try {
    const parsed = JSON.parse(Buffer.from(text, 'base64url').toString()) as { v?: string; rv?: number; start?: string };
    if (parsed.v !== 'meta.k8s.io/v1' || typeof parsed.rv !== 'number' || typeof parsed.start !== 'string') throw new Error();
    return { rv: parsed.rv, start: parsed.start };
  } catch {
    throw errors.badRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  }
}

export class Registry {
  readonly admission: Admission;
  /** Called after an object is removed for good (the garbage collector listens). */
  onRemoved: (def: ResourceDef, object: KObject) => void = () => {};

  constructor(readonly store: Store) {
    this.admission = new Admission(store);
  }

  decodeBody(def: ResourceDef, body: Json, options: WriteOptions, typeName = def.schema): KObject {
    let decoded;
    try {
      decoded = decode(body, typeName);
    } catch (error) {
      if (error instanceof DecodeError)
        throw errors.badRequest(`${def.kind} in version "${def.version}" cannot be handled as a ${def.kind}: ${error.message}`);
      throw error;
    }
    if (decoded.unknownFields.length > 0) {
      const listed = decoded.unknownFields.map((field) => `unknown field "${field}"`);
      if (options.fieldValidation === 'Strict') {
        throw errors.badRequest(
          `${def.kind} in version "${def.version}" cannot be handled as a ${def.kind}: strict decoding error: ${listed.join(', ')}`,
        );
      }
      if (options.fieldValidation !== 'Ignore') options.warnings?.push(...listed);
    }
    const object = decoded.value as KObject;
    object.metadata ??= { name: '' };
    return object;
  }

  private checkKind(def: ResourceDef, object: KObject): void {
    const apiVersion = apiVersionOf(def);
    if ((object.kind && object.kind !== def.kind) || (object.apiVersion && object.apiVersion !== apiVersion)) {
      throw errors.badRequest(
        `the API version in the data (${object.apiVersion ?? ''}) does not match the expected API version (${apiVersion})`,
      );
    }
    object.kind = def.kind;
    object.apiVersion = apiVersion;
  }

  private key(def: ResourceDef, namespace: string | undefined, name: string): string {
    return objectKey(def.namespaced ? namespace : undefined, name);
  }

  exists(def: ResourceDef, namespace: string | undefined, name: string): boolean {
    return this.store.peek(storeName(def), this.key(def, namespace, name)) !== undefined;
  }

  get(def: ResourceDef, namespace: string | undefined, name: string): KObject {
    const found = this.store.get(storeName(def), this.key(def, namespace, name));
    if (!found) throw errors.notFound(groupResource(def), name);
    return found;
  }

  create(def: ResourceDef, namespace: string | undefined, body: Json, options: WriteOptions = {}): KObject {
    const object = this.decodeBody(def, body, options);
    this.checkKind(def, object);
    const meta = object.metadata;
    if (def.namespaced) {
      if (meta.namespace && namespace && meta.namespace !== namespace) {
        throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
      }
      meta.namespace = meta.namespace || namespace;
    } else {
      delete meta.namespace;
    }
    if (meta.resourceVersion) throw errors.badRequest('resourceVersion should not be set on objects to be created');
    if (!meta.name && meta.generateName) meta.name = generateName(meta.generateName);
    DEFAULTERS[def.kind]?.(object);
    // the API server's order: admission (namespace lifecycle, mutating plugins), validation, then storage
    this.admission.checkNamespace(def, object, 'create');
    this.admission.admitCreate(def, object);
    const problems = [...validateObjectMeta(object, def.namespaced), ...validateCreate(object)];
    if (problems.length) throw errors.invalid(def.group, def.kind, meta.name || meta.generateName || '', problems);
    if (this.store.peek(storeName(def), keyOf(object))) {
      if (meta.generateName && !(body as Loose).metadata?.name) {
        throw new ApiError({
          ...errors.alreadyExists(groupResource(def), meta.name).status,
          message: `${def.group ? `${def.resource}.${def.group}` : def.resource} "${meta.name}" already exists, the server was not able to generate a unique name for the object`,
        });
      }
      throw errors.alreadyExists(groupResource(def), meta.name);
    }
    meta.uid = randomUUID();
    meta.creationTimestamp = now();
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    delete meta.selfLink;
    if (def.kind === 'Namespace') object.status = { phase: 'Active' };
    // PrepareForCreate: a new budget's status is empty until the disruption controller fills it
    if (def.kind === 'PodDisruptionBudget')
      object.status = { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 };
    if (options.dryRun) return { ...object, metadata: { ...meta } };
    return structuredClone(this.store.put(storeName(def), object));
  }

  /** Replaces an object (PUT), or its status with `subresource: 'status'`. */
  update(
    def: ResourceDef,
    namespace: string | undefined,
    name: string,
    body: Json,
    options: WriteOptions = {},
    subresource?: string,
  ): KObject {
    const object = this.decodeBody(def, body, options);
    this.checkKind(def, object);
    if (object.metadata.name && object.metadata.name !== name) {
      throw errors.badRequest(`the name of the object (${object.metadata.name}) does not match the name on the URL (${name})`);
    }
    object.metadata.name = name;
    if (def.namespaced) {
      if (object.metadata.namespace && object.metadata.namespace !== namespace) {
        throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
      }
      object.metadata.namespace = namespace;
    }
    const current = this.store.peek(storeName(def), this.key(def, namespace, name));
    if (!current) {
      if (allowCreateOnUpdate(def) && !subresource) {
        delete object.metadata.resourceVersion;
        return this.create(def, namespace, asJson(object), options);
      }
      throw errors.notFound(groupResource(def), name);
    }
    return this.replace(def, current, object, options, subresource);
  }

  /** The common tail of update and patch: preconditions, strategy, validation, no-op detection, write. */
  private replace(def: ResourceDef, current: KObject, object: KObject, options: WriteOptions, subresource?: string): KObject {
    const rv = object.metadata.resourceVersion;
    // the generic store's check, before the strategy and validation run; a patch keeps the
    // current resourceVersion unless it removes it
    if (!rv && !allowUnconditionalUpdate(def)) throw resourceVersionRequired(def, current.metadata.name);
    if (rv && rv !== current.metadata.resourceVersion) {
      throw errors.conflict(
        groupResource(def),
        current.metadata.name,
        'the object has been modified; please apply your changes to the latest version and try again',
      );
    }
    DEFAULTERS[def.kind]?.(object);
    const meta = object.metadata;
    if (subresource === 'status') {
      const status = object.status;
      Object.assign(object, structuredClone(current));
      object.status = status;
      if (def.kind === 'Pod' && !(status as Loose | undefined)?.qosClass)
        (object.status as Loose).qosClass = (current.status as Loose)?.qosClass;
    } else {
      if (def.statusSubresource) object.status = structuredClone(current.status);
      // fields only the server sets
      meta.uid = current.metadata.uid;
      meta.creationTimestamp = current.metadata.creationTimestamp;
      if (current.metadata.deletionTimestamp) meta.deletionTimestamp = current.metadata.deletionTimestamp;
      else delete meta.deletionTimestamp;
      if (current.metadata.deletionGracePeriodSeconds !== undefined)
        meta.deletionGracePeriodSeconds = current.metadata.deletionGracePeriodSeconds;
      else delete meta.deletionGracePeriodSeconds;
      if (current.metadata.generateName && !meta.generateName) meta.generateName = current.metadata.generateName;
      this.admission.admitUpdate(def, object, current);
      if (def.kind === 'Namespace') {
        (object.metadata.labels ??= {})['kubernetes.io/metadata.name'] = current.metadata.name;
      }
    }
    object.metadata.resourceVersion = current.metadata.resourceVersion;
    const problems = subresource === 'status' ? [] : validateUpdate(object, current);
    if (problems.length) throw errors.invalid(def.group, def.kind, current.metadata.name, problems);
    if (withoutVersion(object) === withoutVersion(current)) return structuredClone(current);
    if (options.dryRun) return object;
    const finishes = object.metadata.deletionTimestamp && (object.metadata.finalizers ?? []).length === 0 && this.deletionDue(def, object);
    if (finishes) return this.removeNow(def, object);
    return structuredClone(this.store.put(storeName(def), object));
  }

  /** A deleted object whose finalizers are gone leaves once its grace period is over (pods: when the kubelet says so). */
  private deletionDue(def: ResourceDef, object: KObject): boolean {
    if (def.kind === 'Namespace') return ((object.spec as Loose | undefined)?.finalizers ?? []).length === 0;
    return (object.metadata.deletionGracePeriodSeconds ?? 0) === 0;
  }

  patch(
    def: ResourceDef,
    namespace: string | undefined,
    name: string,
    type: PatchType,
    patchBody: Json,
    options: WriteOptions = {},
    subresource?: string,
  ): KObject {
    const key = this.key(def, namespace, name);
    const current = this.store.peek(storeName(def), key);
    if (!current) {
      if (type === 'apply' && !subresource) return this.create(def, namespace, patchBody, options);
      throw errors.notFound(groupResource(def), name);
    }
    let patched: Json;
    try {
      const base = structuredClone(current) as JsonObject;
      if (type === 'json') patched = jsonPatch(base, patchBody);
      else if (type === 'merge') patched = mergePatch(base, patchBody);
      else patched = strategicMergePatch(base, patchBody, def.schema);
    } catch (error) {
      if (error instanceof PatchError) {
        if (error.code === 400) throw errors.badRequest(error.message);
        throw new ApiError({ ...errors.badRequest(error.message).status, code: 422, reason: 'Invalid' });
      }
      throw error;
    }
    // server-side apply without a resourceVersion in the configuration is unconditional
    if (type === 'apply' && (patched as Loose).metadata) (patched as Loose).metadata.resourceVersion = current.metadata.resourceVersion;
    const object = this.decodeBody(def, patched, options);
    this.checkKind(def, object);
    if (object.metadata.name !== name)
      throw errors.badRequest(`the name of the object (${object.metadata.name}) does not match the name on the URL (${name})`);
    return this.replace(def, current, object, options, subresource);
  }

  delete(def: ResourceDef, namespace: string | undefined, name: string, options: DeleteOptions = {}): KObject {
    const current = this.store.peek(storeName(def), this.key(def, namespace, name));
    if (!current) throw errors.notFound(groupResource(def), name);
    const pre = options.preconditions;
    if (pre?.uid && pre.uid !== current.metadata.uid) {
      throw errors.conflict(
        groupResource(def),
        name,
        `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${current.metadata.uid}`,
      );
    }
    if (pre?.resourceVersion && pre.resourceVersion !== current.metadata.resourceVersion) {
      throw errors.conflict(
        groupResource(def),
        name,
        `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in meta: ${current.metadata.resourceVersion}`,
      );
    }
    const object = structuredClone(current);
    const grace = this.gracePeriod(def, object, options.gracePeriodSeconds);
    const finalizers = object.metadata.finalizers ?? [];
    const namespaceFinalizers = def.kind === 'Namespace' ? ((object.spec as Loose | undefined)?.finalizers ?? []) : [];
    if (grace > 0 || finalizers.length > 0 || namespaceFinalizers.length > 0) {
      const existing = object.metadata.deletionTimestamp;
      const remaining = object.metadata.deletionGracePeriodSeconds;
      if (existing && remaining !== undefined && grace >= remaining) return object;
      object.metadata.deletionTimestamp = formatTime(new Date(Date.now() + grace * 1000));
      object.metadata.deletionGracePeriodSeconds = grace;
      if (def.kind === 'Namespace') (object.status as Loose).phase = 'Terminating';
      if (options.dryRun) return object;
      if (grace === 0 && finalizers.length === 0 && namespaceFinalizers.length === 0) return this.removeNow(def, object);
      return structuredClone(this.store.put(storeName(def), object));
    }
    if (options.dryRun) return object;
    return this.removeNow(def, object);
  }

  private gracePeriod(def: ResourceDef, pod: KObject, requested: number | undefined): number {
    if (def.kind !== 'Pod') return 0;
    const spec = pod.spec as Loose;
    let grace = requested ?? spec.terminationGracePeriodSeconds ?? 30;
    if (!spec.nodeName) grace = 0;
    const phase = (pod.status as Loose | undefined)?.phase;
    if (phase === 'Failed' || phase === 'Succeeded') grace = 0;
    if (grace < 0) grace = 1;
    return grace;
  }

  private removeNow(def: ResourceDef, object: KObject): KObject {
    const removed = this.store.remove(storeName(def), keyOf(object));
    if (removed) this.onRemoved(def, removed);
    return structuredClone(removed ?? object);
  }

  /** Removes a pod whose containers are gone (the kubelet's final delete with grace period 0). */
  finishDeletion(def: ResourceDef, namespace: string | undefined, name: string, uid?: string): void {
    const current = this.store.peek(storeName(def), this.key(def, namespace, name));
    if (!current || (uid && current.metadata.uid !== uid)) return;
    if ((current.metadata.finalizers ?? []).length > 0) {
      const object = structuredClone(current);
      object.metadata.deletionGracePeriodSeconds = 0;
      this.store.put(storeName(def), object);
      return;
    }
    this.removeNow(def, current);
  }

  list(def: ResourceDef, namespace: string | undefined, options: ListOptions = {}): ListResult {
    const labels = this.labelSelector(options.labelSelector);
    const fields = this.fieldSelector(def, options.fieldSelector);
    const name = storeName(def);
    const prefix = def.namespaced && namespace ? `${namespace}/` : undefined;
    let rv = this.store.resourceVersion;
    let start = '';
    let source: KObject[];
    const requested = options.resourceVersion ? Number(options.resourceVersion) : undefined;
    if (options.resourceVersion && (!Number.isInteger(requested) || requested! < 0)) {
      throw errors.badRequest(
        `Invalid value: "${options.resourceVersion}": strconv.ParseUint: parsing "${options.resourceVersion}": invalid syntax`,
      );
    }
    try {
      if (options.continue) {
        const token = decodeContinue(options.continue);
        rv = token.rv;
        start = token.start;
        source = this.store.valuesAt(name, rv);
      } else if (options.resourceVersionMatch === 'Exact') {
        if (!requested) throw errors.badRequest('resourceVersionMatch "Exact" is forbidden for resourceVersion "0"');
        if (requested > this.store.resourceVersion) throw errors.tooLargeResourceVersion(requested, this.store.resourceVersion);
        rv = requested;
        source = this.store.valuesAt(name, rv);
      } else {
        if (requested && requested > this.store.resourceVersion)
          throw errors.tooLargeResourceVersion(requested, this.store.resourceVersion);
        source = this.store.values(name, prefix);
      }
    } catch (error) {
      if (error instanceof ExpiredError) {
        if (options.continue) {
          throw errors.expired(
            'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
          );
        }
        throw errors.expired(`The resourceVersion for the provided list is too old.`);
      }
      throw error;
    }
    const matching = source.filter((object) => {
      const key = keyOf(object);
      if (prefix && !key.startsWith(prefix)) return false;
      if (start && key < start) return false;
      return labels(object.metadata.labels) && fields(selectableFields(def, object));
    });
    const limit = options.limit && options.limit > 0 ? options.limit : undefined;
    const items = limit ? matching.slice(0, limit) : matching;
    // the stored objects themselves: callers serialize them and must not change them
    const result: ListResult = { items, resourceVersion: String(rv) };
    if (limit && matching.length > limit) {
      result.continue = encodeContinue({ rv, start: `${keyOf(items[items.length - 1]!)}\u0000` });
      if (!options.labelSelector && !options.fieldSelector) result.remainingItemCount = matching.length - limit;
    }
    return result;
  }

  labelSelector(text: string | undefined) {
    try {
      return parseLabelSelector(text);
    } catch (error) {
      if (error instanceof SelectorError) throw errors.badRequest(error.message);
      throw error;
    }
  }

  fieldSelector(def: ResourceDef, text: string | undefined) {
    try {
      return parseFieldSelector(text, supportedFields(def)).matches;
    } catch (error) {
      if (error instanceof SelectorError) throw errors.badRequest(error.message);
      throw error;
    }
  }
}
