import type { BodyPart, RuleContext } from './request-body.js';
import type { Violation } from './violation.js';

type Shape = 'boolean' | 'string' | 'number' | 'strings' | 'objects' | 'string-map';

/** The fields the rules read, with the JSON types Docker's API gives them (each may also be null). */
const HOST_FIELDS: Readonly<Record<string, Shape>> = {
  Privileged: 'boolean',
  NetworkMode: 'string',
  PidMode: 'string',
  IpcMode: 'string',
  UTSMode: 'string',
  UsernsMode: 'string',
  CgroupnsMode: 'string',
  Binds: 'strings',
  Mounts: 'objects',
  CapAdd: 'strings',
  SecurityOpt: 'strings',
  Sysctls: 'string-map',
  MaskedPaths: 'strings',
  ReadonlyPaths: 'strings',
  VolumeDriver: 'string',
  Cgroup: 'string',
  Tmpfs: 'string-map',
  OomScoreAdj: 'number',
};
const RESOURCE_FIELDS: Readonly<Record<string, Shape>> = {
  Devices: 'objects',
  DeviceRequests: 'objects',
  DeviceCgroupRules: 'strings',
  Memory: 'number',
  NanoCpus: 'number',
  CpuQuota: 'number',
  CgroupParent: 'string',
};

const isObject = (value: unknown) => typeof value === 'object' && value !== null && !Array.isArray(value);

const EXPECTED: Readonly<Record<Shape, [string, (value: unknown) => boolean]>> = {
  boolean: ['a boolean', (value) => typeof value === 'boolean'],
  string: ['a string', (value) => typeof value === 'string'],
  number: ['a number', (value) => typeof value === 'number' && Number.isFinite(value)],
  strings: ['a list of strings', (value) => Array.isArray(value) && value.every((item) => typeof item === 'string')],
  objects: ['a list of objects', (value) => Array.isArray(value) && value.every(isObject)],
  'string-map': [
    'an object of strings',
    (value) => isObject(value) && Object.values(value as object).every((item) => typeof item === 'string'),
  ],
};

function checkPart(part: BodyPart, fields: Readonly<Record<string, Shape>>): Violation | undefined {
  for (const [key, shape] of Object.entries(fields)) {
    const value = part.fields[key];
    if (value === undefined || value === null) continue;
    const [expected, matches] = EXPECTED[shape];
    if (!matches(value)) return { rule: 'malformed', field: `${part.prefix}${key}`, detail: `: expected ${expected}` };
  }
  return undefined;
}

/**
 * First of all, the fields the other rules read must have Docker's types: a rule must never let a
 * field pass because it could not read it (a `CapAdd` sent as a string), and the engine would
 * refuse such a body anyway.
 */
export function shapeRule(context: RuleContext): Violation | undefined {
  const { body } = context;
  if (body['HostConfig'] !== undefined && body['HostConfig'] !== null && !isObject(body['HostConfig']))
    return { rule: 'malformed', field: 'HostConfig', detail: ': expected an object' };
  if (body['User'] !== undefined && body['User'] !== null && typeof body['User'] !== 'string')
    return { rule: 'malformed', field: 'User', detail: ': expected a string' };
  const host = checkPart(context.host, HOST_FIELDS);
  if (host) return host;
  for (const part of context.resources) {
    const found = checkPart(part, RESOURCE_FIELDS);
    if (found) return found;
  }
  return undefined;
}
