import type { ForwardedRoute } from './forwarded-request.js';

const TRUE = new Set(['1', 'true', 'True', 'TRUE']);
const FALSE = new Set(['0', 'false', 'False', 'FALSE']);

/**
 * Whether a forwarded answer goes on until the client leaves: `attach`, `logs` with `follow`,
 * `stats` unless `stream=false`. A stopping manager ends these at a clean boundary; every other
 * request gets its time to finish. `path` is the engine path with its query.
 */
export function endsOnlyWhenCut(route: ForwardedRoute, path: string): boolean {
  if (route.kind !== 'container') return false;
  const query = new URLSearchParams(path.includes('?') ? path.slice(path.indexOf('?') + 1) : '');
  switch (route.operation) {
    case 'attach':
      return true;
    case 'logs':
      return TRUE.has(query.get('follow') ?? '');
    case 'stats':
      return !FALSE.has(query.get('stream') ?? '');
    default:
      return false;
  }
}
