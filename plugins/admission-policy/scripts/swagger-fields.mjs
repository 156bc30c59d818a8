#!/usr/bin/env node
/*
 * Lists the field paths of the request bodies (and the query parameters) that admission judges,
 * as an Engine API swagger file describes them, so that the field table can be checked against
 * every field the engine reads.
 *
 *   git -C <moby> show v20.10.24:api/swagger.yaml > /tmp/swagger-1.41.yaml
 *   node plugins/admission-policy/scripts/swagger-fields.mjs /tmp/swagger-1.41.yaml [more.yaml ...] > plugins/admission-policy/src/swagger-fields.json
 *
 * Path syntax: `HostConfig.Binds` (a leaf: a scalar, a list of scalars or a map of scalars),
 * `HostConfig.Mounts[].Source` (a field of each object in a list),
 * `NetworkingConfig.EndpointsConfig.*.Aliases` (a field of each value in a map of objects),
 * `?name` (a query parameter).
 */
import { readFileSync } from 'node:fs';
import { load } from 'js-yaml';

/** The operations admission judges, by the swagger's operationId, under the action names of the access contract. */
const OPERATIONS = {
  ContainerCreate: 'container.create',
  ContainerUpdate: 'container.update',
  ContainerExec: 'container.exec',
  VolumeCreate: 'volume.create',
  NetworkCreate: 'network.create',
  ImageBuild: 'image.build',
  ImageCreate: 'image.import',
};

function resolve(spec, schema) {
  let current = schema;
  while (current && current.$ref)
    current = current.$ref
      .replace('#/', '')
      .split('/')
      .reduce((node, key) => node[key], spec);
  return current ?? {};
}

/** The properties of an object schema, allOf parts merged. */
function propertiesOf(spec, schema) {
  const resolved = resolve(spec, schema);
  const merged = { ...(resolved.properties ?? {}) };
  for (const part of resolved.allOf ?? []) Object.assign(merged, propertiesOf(spec, part));
  return merged;
}

function isObjectSchema(spec, schema) {
  const resolved = resolve(spec, schema);
  return Object.keys(propertiesOf(spec, resolved)).length > 0;
}

function walk(spec, schema, prefix, out, seen) {
  const resolved = resolve(spec, schema);
  const properties = propertiesOf(spec, resolved);
  for (const [name, property] of Object.entries(properties)) {
    const path = prefix === '' ? name : `${prefix}.${name}`;
    const field = resolve(spec, property);
    if (property.$ref && seen.includes(property.$ref)) {
      out.add(path);
      continue;
    }
    const nextSeen = property.$ref ? [...seen, property.$ref] : seen;
    if (field.type === 'array' && field.items && isObjectSchema(spec, field.items)) walk(spec, field.items, `${path}[]`, out, nextSeen);
    else if (isObjectSchema(spec, field)) walk(spec, field, path, out, nextSeen);
    else if (
      field.additionalProperties &&
      typeof field.additionalProperties === 'object' &&
      isObjectSchema(spec, field.additionalProperties)
    )
      walk(spec, field.additionalProperties, `${path}.*`, out, nextSeen);
    else out.add(path);
  }
}

function fieldsOf(spec) {
  const actions = {};
  for (const operations of Object.values(spec.paths)) {
    for (const operation of Object.values(operations)) {
      const action = OPERATIONS[operation?.operationId];
      if (!action) continue;
      const out = new Set();
      for (const parameter of operation.parameters ?? []) {
        if (parameter.in === 'query') out.add(`?${parameter.name}`);
        if (parameter.in === 'body') walk(spec, parameter.schema, '', out, []);
      }
      actions[action] = [...out].sort();
    }
  }
  return actions;
}

const files = process.argv.slice(2);
if (files.length === 0) {
  process.stderr.write('usage: swagger-fields.mjs swagger.yaml [swagger.yaml ...]\n');
  process.exit(2);
}
const byVersion = {};
for (const file of files) {
  const spec = load(readFileSync(file, 'utf8'));
  byVersion[spec.info.version] = fieldsOf(spec);
}
process.stdout.write(`${JSON.stringify(byVersion, null, 2)}\n`);
