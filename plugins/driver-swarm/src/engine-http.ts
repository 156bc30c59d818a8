import { ErrorCodes, SwarmError, type EngineEndpoint } from '@swarm/plugin-sdk';

/** True when the engine was not reached at all (refused, reset, timed out), as opposed to an API error. */
export function isConnectionError(error: unknown): boolean {
  return error instanceof SwarmError && error.details?.['connection'] === true;
}

export function endpointLabel(endpoint: EngineEndpoint): string {
  return endpoint.socketPath ?? `${endpoint.host}:${endpoint.port}`;
}

export function connectionError(endpoint: EngineEndpoint, reason: string, cause?: unknown): SwarmError {
  return new SwarmError(ErrorCodes.ENGINE_ERROR, `Cannot connect to the Docker engine endpoint ${endpointLabel(endpoint)}: ${reason}`, {
    cause,
    details: { connection: true },
  });
}

/** The caller gave up (a client that left a pull): neither the engine's fault nor a connection failure. */
export function cancelledError(endpoint: EngineEndpoint, cause?: unknown): SwarmError {
  return new SwarmError(ErrorCodes.ENGINE_ERROR, `request to ${endpointLabel(endpoint)} cancelled`, {
    cause,
    details: { cancelled: true },
  });
}

/** An engine's error answer with the engine's own message, as Docker clients print it. */
export function apiError(status: number, text: string): SwarmError {
  let message = text.trim();
  try {
    const parsed = JSON.parse(text) as { message?: unknown };
    if (typeof parsed.message === 'string') message = parsed.message;
  } catch {
    // not JSON: keep the text (a proxy or a web server that is not an engine)
  }
  if (message === '') message = `HTTP ${status}`;
  const code = status === 404 ? ErrorCodes.NOT_FOUND : status === 409 ? ErrorCodes.CONFLICT : ErrorCodes.ENGINE_ERROR;
  return new SwarmError(code, message, { httpStatus: status, details: { status } });
}

/** What docker-modem rejects with: an HTTP status with the answer, or a socket error. */
interface ModemError extends Error {
  statusCode?: number;
  json?: unknown;
}

/** docker-modem keeps a streamed error answer only inside its message: `(HTTP code N) reason - text `. */
const STREAMED_ANSWER = /^\(HTTP code \d+\) [^-]*- ([\s\S]*) $/;

function answerText(error: ModemError): string {
  const { json } = error;
  if (Buffer.isBuffer(json)) return json.toString('utf8');
  if (typeof json === 'object' && json !== null) return JSON.stringify(json);
  return STREAMED_ANSWER.exec(error.message)?.[1] ?? '';
}

/** A coded error for a failed engine call: the engine's answer, or why it was not reached. */
export function engineCallError(endpoint: EngineEndpoint, error: unknown): SwarmError {
  if (error instanceof SwarmError) return error;
  const failure = error as ModemError;
  if (typeof failure?.statusCode === 'number') return apiError(failure.statusCode, answerText(failure));
  return connectionError(endpoint, failure instanceof Error ? failure.message : String(error), error);
}
