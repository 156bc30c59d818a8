import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isSwarmError } from '@swarm/plugin-sdk';
import { auditTime, type AuditDecision, type AuditRecord } from '../access/audit-log.js';
import type { DecisionRecord } from '../access/access-control.js';
import type { RequestAccess } from '../access/request-access.js';
import type { AccessTrail } from './access-gate.js';

export interface AuditFacts {
  readonly req: IncomingMessage;
  readonly method: string;
  readonly remote: string;
  readonly startedAt: number;
  readonly seconds: number;
  readonly status: number;
  readonly trail: AccessTrail;
  readonly access: RequestAccess | undefined;
  /** What the request failed with, if it did: a refusal carries its decision. */
  readonly failure: unknown;
}

/** The decision a request's line records: a refusal's own, else the access check's. */
export function decisionOf(access: RequestAccess | undefined, failure: unknown): AuditDecision {
  if (isSwarmError(failure)) {
    const decision = (failure.details as { decision?: DecisionRecord } | undefined)?.decision;
    if (decision) return decision;
    if (failure.httpStatus === 401) return { allowed: false, plugin: 'authn', reason: failure.message };
  }
  return access?.decision ?? { allowed: true };
}

/** The audit log's line for one request: who, what, on what, the decision, and how it ended. */
export function auditRecord(facts: AuditFacts): AuditRecord {
  const { trail } = facts;
  const caller = trail.caller;
  const object = trail.object;
  return {
    time: auditTime(facts.startedAt),
    requestId: randomUUID(),
    user: caller?.user ?? '',
    ...(caller?.uid ? { uid: caller.uid } : {}),
    groups: caller?.groups ?? [],
    authMethod: caller?.method ?? '',
    sourceAddress: facts.remote === 'unix' ? '' : facts.remote,
    method: facts.method,
    path: facts.req.url ?? '/',
    action: trail.action ?? 'unknown',
    ...(object ? { object: { kind: object.kind, id: object.id, name: object.name, node: object.node } } : {}),
    decision: decisionOf(facts.access, facts.failure),
    status: facts.status,
    durationMs: Math.round(facts.seconds * 1000 * 1000) / 1000,
  };
}
