import type { AccessObjectKind } from '@swarm/plugin-sdk/access';

/*
 * One line of the audit log. Its fields are named after kube-apiserver's audit Event (`auditID`
 * is `requestId`, `user.username` is `user`, `objectRef` is `object`, `responseStatus.code` is
 * `status`, the `authorization.k8s.io/decision` and `/reason` annotations are `decision`), but
 * kept flat, one level deep, so `jq 'select(.user == "bob")'` reads it.
 *
 * Nothing secret has a field here: no headers (`Authorization`, `X-Registry-Auth`), no bodies
 * (a create's `Env`, `/auth`'s password), no query string (`/build?buildargs=` can hold
 * secrets). `auditLine` writes these fields and no others, so a record built by spreading a
 * richer object cannot carry anything else into the file.
 */

/**
 * kube-apiserver's stages that a request can be logged at. A short request has one line, at
 * `ResponseComplete`; a stream (attach, exec, logs and events that follow) may also have one at
 * `ResponseStarted`, so that it is on file while it lasts.
 */
export type AuditStage = 'ResponseStarted' | 'ResponseComplete';

export interface AuditObject {
  readonly kind: AccessObjectKind;
  /** Full ID when the object exists. */
  readonly id?: string;
  readonly name?: string;
  /** The node it lives on. */
  readonly node?: string;
}

/** Who decided and why: the authorizer (or admission controller) that denied, or the last that allowed. */
export interface AuditDecision {
  readonly allowed: boolean;
  /** The config entry's name (`rules`, `docker`, `baseline`). */
  readonly plugin?: string;
  /** The rule or binding that decided (`binding team-b`). */
  readonly rule?: string;
  /** The reason the client was given. */
  readonly reason?: string;
}

export interface AuditRecord {
  /** When the request was received: ISO 8601 in UTC (`auditTime()`). */
  readonly time: string;
  /** Absent: `ResponseComplete`. */
  readonly stage?: AuditStage;
  readonly requestId: string;
  /** `system:anonymous` when no authenticator knew the caller. */
  readonly user: string;
  readonly uid?: string;
  readonly groups: readonly string[];
  /** `TLS`, `token`, or empty for anonymous (dockerd's `UserAuthNMethod`). */
  readonly authMethod: string;
  /** The peer's address as the socket gives it (`10.0.0.7`, `::1`), empty on a Unix socket. */
  readonly sourceAddress: string;
  /** `GET`, `POST`, ... */
  readonly method: string;
  /** The request target; the log keeps only its path (see `auditPath`). */
  readonly path: string;
  /** `container.create`, `image.pull`, ... (the host's action catalogue). */
  readonly action: string;
  readonly object?: AuditObject;
  readonly decision: AuditDecision;
  /** The HTTP status answered (or, at `ResponseStarted`, being answered). */
  readonly status: number;
  /** From `time` to this stage, in milliseconds. */
  readonly durationMs: number;
}

/** `date` as the audit log writes times: ISO 8601, UTC, milliseconds. */
export function auditTime(date: Date | number = Date.now()): string {
  return new Date(date).toISOString();
}

const ABSOLUTE_FORM = /^[a-z][a-z0-9+.-]*:\/\//i;

/**
 * The part of a request target the audit log keeps: its path. The query goes (`buildargs` of
 * `/build` can hold secrets, and filters can hold anything), as does everything of an
 * absolute-form target (`http://user:password@host/v1.41/info`) but its path.
 */
export function auditPath(uri: string): string {
  if (ABSOLUTE_FORM.test(uri)) {
    try {
      return new URL(uri).pathname;
    } catch {
      return '/';
    }
  }
  const end = uri.search(/[?#]/);
  return end < 0 ? uri : uri.slice(0, end);
}

const optional = <K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> =>
  (value === undefined ? {} : { [key]: value }) as Partial<Record<K, V>>;

/** The object's audited fields and no others (an `AccessObject` also has labels). */
function objectFields(object: AuditObject): AuditObject {
  return {
    kind: object.kind,
    ...optional('id', object.id),
    ...optional('name', object.name),
    ...optional('node', object.node),
  };
}

/** The record as one JSON line (with its `\n`): the fields above, in this order, and nothing else. */
export function auditLine(entry: AuditRecord): string {
  const { decision } = entry;
  const line = {
    time: entry.time,
    stage: entry.stage ?? 'ResponseComplete',
    requestId: entry.requestId,
    user: entry.user,
    ...optional('uid', entry.uid),
    groups: [...entry.groups],
    authMethod: entry.authMethod,
    sourceAddress: entry.sourceAddress,
    method: entry.method,
    path: auditPath(entry.path),
    action: entry.action,
    ...optional('object', entry.object && objectFields(entry.object)),
    decision: {
      allowed: decision.allowed,
      ...optional('plugin', decision.plugin),
      ...optional('rule', decision.rule),
      ...optional('reason', decision.reason),
    },
    status: entry.status,
    durationMs: entry.durationMs,
  };
  return `${JSON.stringify(line)}\n`;
}
