/** Codes of a connection the engine's host refused or cannot route: nothing reached dockerd. */
const REFUSALS = new Set(['ECONNREFUSED', 'ENOENT', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL']);
/** Codes of a connection cut under a call: the engine died or restarted meanwhile. */
const CUTS = new Set(['ECONNRESET', 'EPIPE']);

function codes(error: unknown): string[] {
  const found: string[] = [];
  for (let current = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth++) {
    const code = (current as NodeJS.ErrnoException).code;
    if (typeof code === 'string') found.push(code);
  }
  return found;
}

/** The engine refused the connection: it is down, and the call did nothing there. */
export function isEngineRefusal(error: unknown): boolean {
  return codes(error).some((code) => REFUSALS.has(code));
}

/** The connection was cut under the call: the engine may be going down (the call's effect is unknown). */
export function isConnectionCut(error: unknown): boolean {
  return codes(error).some((code) => CUTS.has(code));
}
