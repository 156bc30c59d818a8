import type { WireViewer } from '../../../src/wire.js';
import { viewerText } from './viewer-text.js';

/**
 * Who is watching, in the header: user, how they authenticated, groups and roles, and whether the
 * view is cut down to their scope. Nothing without access control (the server sends no viewer).
 */
export function ViewerBadge({ viewer }: { viewer: WireViewer | undefined }) {
  if (!viewer) return null;
  const text = viewerText(viewer);
  return (
    <div class="viewer" role="group" aria-label="Signed in" data-viewer={viewer.user}>
      <dl>
        <div>
          <dt>User</dt>
          <dd class="viewer-user">
            <strong>{text.user}</strong> <span class="muted-inverse">({text.how})</span>
          </dd>
        </div>
        <div>
          <dt>Groups</dt>
          <dd class="viewer-groups">{text.groups}</dd>
        </div>
        <div>
          <dt>Roles</dt>
          <dd class="viewer-roles">{text.roles}</dd>
        </div>
        <div>
          <dt class="visually-hidden">Scope</dt>
          <dd class={viewer.scoped ? 'viewer-scope viewer-scoped' : 'viewer-scope'}>{text.scope}</dd>
        </div>
      </dl>
    </div>
  );
}
