import type { WireViewer } from '../../../src/wire.js';

/** How the viewer was authenticated, in words (the host reports dockerd's `UserAuthNMethod`). */
export function methodText(method: string): string {
  if (method === 'TLS') return 'TLS client certificate';
  if (method === 'token') return 'bearer token';
  if (method === '') return 'not authenticated';
  return method;
}

/** The header's words about the viewer: kept apart from the component so tests can read them. */
export function viewerText(viewer: WireViewer): { user: string; how: string; groups: string; roles: string; scope: string } {
  // `system:*` groups are the host's bookkeeping (`system:authenticated`), not teams people know.
  const groups = viewer.groups.filter((group) => !group.startsWith('system:'));
  return {
    user: viewer.user,
    how: methodText(viewer.method),
    groups: groups.length > 0 ? groups.join(', ') : 'none',
    roles: viewer.roles.length > 0 ? viewer.roles.join('; ') : 'none reported',
    scope: viewer.scoped ? 'Showing only what you may see' : 'Showing everything',
  };
}
