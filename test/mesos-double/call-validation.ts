import type { CallJson } from './types.js';

/** An HTTP answer the master gives to a call it refuses. */
export interface Refusal {
  status: number;
  body: string;
  headers?: Record<string, string>;
}

const CALL_TYPES = new Set([
  'SUBSCRIBE',
  'TEARDOWN',
  'ACCEPT',
  'DECLINE',
  'ACCEPT_INVERSE_OFFERS',
  'DECLINE_INVERSE_OFFERS',
  'REVIVE',
  'KILL',
  'SHUTDOWN',
  'ACKNOWLEDGE',
  'ACKNOWLEDGE_OPERATION_STATUS',
  'RECONCILE',
  'RECONCILE_OPERATIONS',
  'MESSAGE',
  'REQUEST',
  'SUPPRESS',
  'UPDATE_FRAMEWORK',
]);

/** The member a call type must carry (validation::scheduler::call::validate). */
const REQUIRED_MEMBER: Readonly<Record<string, string>> = {
  ACCEPT: 'accept',
  DECLINE: 'decline',
  KILL: 'kill',
  SHUTDOWN: 'shutdown',
  ACKNOWLEDGE: 'acknowledge',
  RECONCILE: 'reconcile',
  MESSAGE: 'message',
  REQUEST: 'request',
  ACCEPT_INVERSE_OFFERS: 'accept_inverse_offers',
  DECLINE_INVERSE_OFFERS: 'decline_inverse_offers',
  ACKNOWLEDGE_OPERATION_STATUS: 'acknowledge_operation_status',
  RECONCILE_OPERATIONS: 'reconcile_operations',
  UPDATE_FRAMEWORK: 'update_framework',
};

const badRequest = (body: string): Refusal => ({ status: 400, body });

/** Method, Content-Type and body checks, in the order Master::Http::scheduler makes them. */
export function parseCall(method: string, contentType: string | undefined, body: string): CallJson | Refusal {
  if (method !== 'POST') return { status: 405, body: `Expecting one of { 'POST' }, but received '${method}'`, headers: { Allow: 'POST' } };
  if (contentType === undefined) return badRequest("Expecting 'Content-Type' to be present");
  if (contentType === 'application/x-protobuf') return badRequest('Failed to parse body into Call protobuf');
  if (contentType !== 'application/json')
    return { status: 415, body: "Expecting 'Content-Type' of application/json or application/x-protobuf" };
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (error) {
    return badRequest(`Failed to parse body into JSON: ${(error as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    return badRequest('Failed to convert JSON into Call protobuf: Expecting a JSON object');
  const call = parsed as CallJson;
  if (call.type !== undefined && (typeof call.type !== 'string' || !CALL_TYPES.has(call.type))) {
    return badRequest(`Failed to convert JSON into Call protobuf: Failed to find enum for '${String(call.type)}'`);
  }
  const info = call.subscribe?.framework_info;
  if (call.subscribe && (!info || info.user === undefined || info.name === undefined)) {
    const missing = ['user', 'name']
      .filter((field) => info?.[field as 'user' | 'name'] === undefined)
      .map((field) => `subscribe.framework_info.${field}`);
    return badRequest(`Failed to convert JSON into Call protobuf: Missing required fields: ${missing.join(', ')}`);
  }
  return call;
}

export function isRefusal(value: CallJson | Refusal): value is Refusal {
  return typeof (value as Refusal).status === 'number' && typeof (value as Refusal).body === 'string';
}

/** Semantic validation of a parsed call (answers 400 "Failed to validate scheduler::Call: ..."). */
export function validateCall(call: CallJson): Refusal | undefined {
  const fail = (why: string) => badRequest(`Failed to validate scheduler::Call: ${why}`);
  if (call.type === undefined) return fail("Expecting 'type' to be present");
  if (call.type === 'SUBSCRIBE') {
    if (!call.subscribe) return fail("Expecting 'subscribe' to be present");
    const infoId = call.subscribe.framework_info?.id?.value;
    if (call.framework_id?.value !== infoId && (call.framework_id !== undefined || infoId !== undefined)) {
      return fail("'framework_id' differs from 'subscribe.framework_info.id'");
    }
    return undefined;
  }
  if (!call.framework_id?.value) return fail("Expecting 'framework_id' to be present");
  const member = REQUIRED_MEMBER[call.type];
  if (member && call[member] === undefined) return fail(`Expecting '${member}' to be present`);
  if (call.type === 'ACKNOWLEDGE') {
    const uuid = call.acknowledge?.uuid;
    if (!uuid || Buffer.from(uuid, 'base64').length !== 16) return fail("Expecting 'uuid' to be a valid UUID");
  }
  return undefined;
}
