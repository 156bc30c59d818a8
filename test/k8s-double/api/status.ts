// metav1.Status failures with the API server's codes, reasons and message texts
// (apimachinery pkg/api/errors), thrown by handlers and written by the server.
import { aggregate, renderFieldError, type FieldError } from '../model/field-errors.js';

export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Success' | 'Failure';
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code: number;
}

/** group/resource as apimachinery's GroupResource.String() prints it: "pods", "leases.coordination.k8s.io". */
export interface GroupResource {
  group: string;
  resource: string;
}

export const groupResourceText = ({ group, resource }: GroupResource): string => (group ? `${resource}.${group}` : resource);

export class ApiError extends Error {
  constructor(readonly status: Status) {
    super(status.message);
  }
  get code(): number {
    return this.status.code;
  }
}

function failure(code: number, reason: string, message: string, details?: StatusDetails): ApiError {
  // the field order of the API server's JSON: ..., reason, details, code
  const status = {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason,
    ...(details ? { details } : {}),
    code,
  } as Status;
  return new ApiError(status);
}

function detailsOf(gr: GroupResource, name?: string): StatusDetails {
  const details: StatusDetails = {};
  if (name) details.name = name;
  if (gr.group) details.group = gr.group;
  details.kind = gr.resource;
  return details;
}

export const successStatus = (details?: StatusDetails): Status => {
  const status: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 200 };
  if (details) status.details = details;
  return status;
};

export const errors = {
  notFound: (gr: GroupResource, name: string) =>
    failure(404, 'NotFound', `${groupResourceText(gr)} "${name}" not found`, detailsOf(gr, name)),
  alreadyExists: (gr: GroupResource, name: string) =>
    failure(409, 'AlreadyExists', `${groupResourceText(gr)} "${name}" already exists`, detailsOf(gr, name)),
  conflict: (gr: GroupResource, name: string, why: string) =>
    failure(409, 'Conflict', `Operation cannot be fulfilled on ${groupResourceText(gr)} "${name}": ${why}`, detailsOf(gr, name)),
  forbidden: (gr: GroupResource, name: string, why: string) => {
    const text = groupResourceText(gr);
    const message = !text ? `forbidden: ${why}` : name ? `${text} "${name}" is forbidden: ${why}` : `${text} is forbidden: ${why}`;
    return failure(403, 'Forbidden', message, detailsOf(gr, name));
  },
  unauthorized: (message = 'Unauthorized') => failure(401, 'Unauthorized', message),
  invalid: (group: string, kind: string, name: string, fieldErrors: readonly FieldError[]) => {
    const qualified = group ? `${kind}.${group}` : kind;
    const message = fieldErrors.length
      ? `${qualified} "${name}" is invalid: ${aggregate(fieldErrors.map(renderFieldError))}`
      : `${qualified} "${name}" is invalid`;
    const details: StatusDetails = { name };
    if (group) details.group = group;
    details.kind = kind;
    details.causes = fieldErrors.map((e) => ({ reason: e.type, message: e.body, field: e.field }));
    return failure(422, 'Invalid', message, details);
  },
  badRequest: (message: string) => failure(400, 'BadRequest', message),
  expired: (message: string) => failure(410, 'Expired', message),
  methodNotSupported: (gr: GroupResource, action: string) =>
    failure(405, 'MethodNotAllowed', `${action} is not supported on resources of kind "${groupResourceText(gr)}"`, detailsOf(gr)),
  notAcceptable: (message: string) => failure(406, 'NotAcceptable', message),
  unsupportedMediaType: (message: string) => failure(415, 'UnsupportedMediaType', message),
  tooLargeResourceVersion: (wanted: number, current: number) => {
    const error = failure(504, 'Timeout', `Timeout: Too large resource version: ${wanted}, current: ${current}`, {
      causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
      retryAfterSeconds: 1,
    });
    return error;
  },
  internal: (message: string) => failure(500, 'InternalError', `Internal error occurred: ${message}`, { causes: [{ message }] }),
  serviceUnavailable: (message: string) => failure(503, 'ServiceUnavailable', message),
  /** An error a handler returns that is no Status (ErrorToAPIStatus): 500, no reason, its text as the message. */
  unknown: (message: string) => {
    const error = failure(500, '', message);
    delete error.status.reason;
    return error;
  },
  pageNotFound: () => failure(404, 'NotFound', 'the server could not find the requested resource', {}),
  notImplemented: (message: string) => failure(501, 'NotImplemented', message),
};
