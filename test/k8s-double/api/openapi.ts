// /openapi/v3: one document per group version, made from the double's schema descriptions.
// kubectl reads them to learn that PATCH takes fieldValidation (so `kubectl apply` validates on
// the server) and to compute strategic merge patches from the merge keys. /openapi/v2 (a
// protobuf document) is not served: kubectl 1.32 does not need it, older kubectls need
// `--validate=false` for apply.
import { createHash } from 'node:crypto';
import { allDefinitions, definition, type ObjectSchema, type Schema } from '../model/schema.js';
import { apiVersionOf, type ResourceDef } from '../model/resources.js';
import { KUBERNETES_VERSION } from './discovery.js';

type OpenApi = Record<string, unknown>;
const REF = (name: string) => `#/components/schemas/${name}`;
const SPECIAL: Record<string, OpenApi> = {
  'io.k8s.apimachinery.pkg.api.resource.Quantity': {
    type: 'string',
    description: 'A fixed-point number: 128974848, 129e6, 129M, 123Mi, 500m.',
  },
  'io.k8s.apimachinery.pkg.util.intstr.IntOrString': { type: 'string', format: 'int-or-string' },
  'io.k8s.apimachinery.pkg.apis.meta.v1.Time': { type: 'string', format: 'date-time' },
  'io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime': { type: 'string', format: 'date-time' },
};

function toOpenApi(schema: Schema, used: Set<string>): OpenApi {
  switch (schema.kind) {
    case 'string':
      return { type: 'string', ...(schema.format ? { format: schema.format } : {}), ...(schema.enum ? { enum: schema.enum } : {}) };
    case 'integer':
      return { type: 'integer', format: schema.format };
    case 'number':
      return { type: 'number', format: 'double' };
    case 'boolean':
      return { type: 'boolean' };
    case 'any':
      return { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
    case 'quantity':
      used.add('io.k8s.apimachinery.pkg.api.resource.Quantity');
      return { allOf: [{ $ref: REF('io.k8s.apimachinery.pkg.api.resource.Quantity') }] };
    case 'intOrString':
      used.add('io.k8s.apimachinery.pkg.util.intstr.IntOrString');
      return { allOf: [{ $ref: REF('io.k8s.apimachinery.pkg.util.intstr.IntOrString') }] };
    case 'time':
    case 'microTime': {
      const name = `io.k8s.apimachinery.pkg.apis.meta.v1.${schema.kind === 'time' ? 'Time' : 'MicroTime'}`;
      used.add(name);
      return { allOf: [{ $ref: REF(name) }] };
    }
    case 'ref':
      collect(schema.name, used);
      return { allOf: [{ $ref: REF(schema.name) }], default: {} };
    case 'map':
      return { type: 'object', additionalProperties: toOpenApi(schema.values, used) };
    case 'array': {
      const out: OpenApi = { type: 'array', items: toOpenApi(schema.items, used) };
      if (schema.patch) {
        out['x-kubernetes-patch-strategy'] = schema.patch.strategy;
        if (schema.patch.mergeKey) out['x-kubernetes-patch-merge-key'] = schema.patch.mergeKey;
      }
      if (schema.listType) out['x-kubernetes-list-type'] = schema.listType;
      if (schema.listMapKeys) out['x-kubernetes-list-map-keys'] = schema.listMapKeys;
      return out;
    }
  }
}

function collect(name: string, used: Set<string>): void {
  if (used.has(name)) return;
  used.add(name);
  objectToOpenApi(definition(name), used);
}

const rendered = new Map<string, OpenApi>();
function objectToOpenApi(object: ObjectSchema, used: Set<string>): OpenApi {
  const properties: Record<string, OpenApi> = {};
  for (const [key, schema] of Object.entries(object.properties)) properties[key] = toOpenApi(schema, used);
  const out: OpenApi = { type: 'object', properties };
  if (object.open) out['x-kubernetes-preserve-unknown-fields'] = true;
  if (object.required?.length) out.required = object.required;
  if (object.gvk) out['x-kubernetes-group-version-kind'] = object.gvk;
  rendered.set(object.name, out);
  return out;
}

const QUERY = (name: string, type = 'string', description = ''): OpenApi => ({
  name,
  in: 'query',
  description,
  schema: { type, uniqueItems: true },
});
const WRITE_PARAMS = [
  QUERY('dryRun', 'string', 'When present, indicates that modifications should not be persisted.'),
  QUERY('fieldManager', 'string', 'fieldManager is a name associated with the actor or entity that is making these changes.'),
  QUERY(
    'fieldValidation',
    'string',
    'fieldValidation instructs the server on how to handle objects in the request containing unknown or duplicate fields: Ignore, Warn or Strict.',
  ),
];
const LIST_PARAMS = [
  'allowWatchBookmarks',
  'continue',
  'fieldSelector',
  'labelSelector',
  'limit',
  'resourceVersion',
  'resourceVersionMatch',
  'sendInitialEvents',
  'timeoutSeconds',
  'watch',
].map((name) =>
  QUERY(
    name,
    ['allowWatchBookmarks', 'sendInitialEvents', 'watch'].includes(name)
      ? 'boolean'
      : ['limit', 'timeoutSeconds'].includes(name)
        ? 'integer'
        : 'string',
  ),
);

function body(name: string, types = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf']): OpenApi {
  return { content: Object.fromEntries(types.map((type) => [type, { schema: { $ref: REF(name) } }])), required: true };
}
const ok = (name: string): OpenApi => ({ '200': { description: 'OK', content: { 'application/json': { schema: { $ref: REF(name) } } } } });

function resourcePaths(def: ResourceDef, used: Set<string>): Record<string, OpenApi> {
  const gvk = { group: def.group, version: def.version, kind: def.kind };
  const prefix = def.group ? `/apis/${def.group}/${def.version}` : `/api/${def.version}`;
  const base = def.namespaced ? `${prefix}/namespaces/{namespace}/${def.resource}` : `${prefix}/${def.resource}`;
  const scope = def.namespaced ? [{ name: 'namespace', in: 'path', required: true, schema: { type: 'string', uniqueItems: true } }] : [];
  const named = [{ name: 'name', in: 'path', required: true, schema: { type: 'string', uniqueItems: true } }];
  const listName = `${def.schema}List`;
  const hasList = allDefinitions().has(listName);
  if (hasList) collect(listName, used);
  collect(def.schema, used);
  const op = (action: string, extra: OpenApi): OpenApi => ({
    'x-kubernetes-action': action,
    'x-kubernetes-group-version-kind': gvk,
    ...extra,
  });
  const paths: Record<string, OpenApi> = {};
  const collection: OpenApi = { parameters: scope };
  if (def.verbs.includes('list')) collection.get = op('list', { parameters: LIST_PARAMS, responses: ok(hasList ? listName : def.schema) });
  if (def.verbs.includes('create'))
    collection.post = op('post', { parameters: WRITE_PARAMS, requestBody: body(def.schema), responses: ok(def.schema) });
  paths[base] = collection;
  if (def.virtual && !def.metrics) return paths;
  const item: OpenApi = { parameters: [...named, ...scope] };
  if (def.verbs.includes('get')) item.get = op('get', { responses: ok(def.schema) });
  if (def.verbs.includes('update'))
    item.put = op('put', { parameters: WRITE_PARAMS, requestBody: body(def.schema), responses: ok(def.schema) });
  if (def.verbs.includes('patch')) {
    item.patch = op('patch', {
      parameters: [...WRITE_PARAMS, QUERY('force', 'boolean')],
      requestBody: body('io.k8s.apimachinery.pkg.apis.meta.v1.Patch', [
        'application/json-patch+json',
        'application/merge-patch+json',
        'application/strategic-merge-patch+json',
        'application/apply-patch+yaml',
      ]),
      responses: ok(def.schema),
    });
    used.add('io.k8s.apimachinery.pkg.apis.meta.v1.Patch');
  }
  if (def.verbs.includes('delete'))
    item.delete = op('delete', {
      parameters: [QUERY('dryRun'), QUERY('gracePeriodSeconds', 'integer'), QUERY('propagationPolicy')],
      responses: ok(def.schema),
    });
  paths[`${base}/{name}`] = item;
  if (def.subresources.includes('status')) {
    paths[`${base}/{name}/status`] = {
      parameters: [...named, ...scope],
      get: op('get', { responses: ok(def.schema) }),
      put: op('put', { parameters: WRITE_PARAMS, requestBody: body(def.schema), responses: ok(def.schema) }),
    };
  }
  return paths;
}

/** The group versions an /openapi/v3 index lists: `api/v1`, `apis/coordination.k8s.io/v1`, ... */
export function openApiGroupVersions(defs: readonly ResourceDef[]): string[] {
  return [...new Set(defs.map((def) => (def.group ? `apis/${apiVersionOf(def)}` : `api/${def.version}`)))];
}

const documents = new Map<string, { text: string; hash: string }>();

export function openApiDocument(groupVersion: string, defs: readonly ResourceDef[]): { text: string; hash: string } | undefined {
  const cached = documents.get(groupVersion);
  if (cached) return cached;
  const matching = defs.filter((def) => (def.group ? `apis/${apiVersionOf(def)}` : `api/${def.version}`) === groupVersion);
  if (matching.length === 0) return undefined;
  const used = new Set<string>(['io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions', 'io.k8s.apimachinery.pkg.apis.meta.v1.Status']);
  collect('io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions', used);
  const paths: Record<string, OpenApi> = {};
  for (const def of matching) Object.assign(paths, resourcePaths(def, used));
  const schemas: Record<string, OpenApi> = {};
  for (const name of [...used].sort()) {
    schemas[name] =
      SPECIAL[name] ??
      rendered.get(name) ??
      (name.endsWith('.Patch') || name.endsWith('.Status')
        ? { type: 'object' }
        : { type: 'object', 'x-kubernetes-preserve-unknown-fields': true });
  }
  const document = {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: KUBERNETES_VERSION.gitVersion },
    paths,
    components: { schemas },
  };
  const text = JSON.stringify(document);
  const result = { text, hash: createHash('sha512').update(text).digest('hex').toUpperCase() };
  documents.set(groupVersion, result);
  return result;
}

export function openApiIndex(defs: readonly ResourceDef[]): Record<string, unknown> {
  const paths: Record<string, { serverRelativeURL: string }> = {};
  for (const groupVersion of openApiGroupVersions(defs)) {
    const document = openApiDocument(groupVersion, defs);
    if (document) paths[groupVersion] = { serverRelativeURL: `/openapi/v3/${groupVersion}?hash=${document.hash}` };
  }
  return { paths };
}
