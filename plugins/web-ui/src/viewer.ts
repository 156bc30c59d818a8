import type { Container } from '@swarm/plugin-sdk';
import type { WebViewer } from '@swarm/plugin-sdk/web';
import type { WireViewer } from './wire.js';

/** Whether a viewer may see a container. */
export type Sees = (container: Container) => boolean;

/**
 * The test a scoped viewer's containers must pass, or `undefined` when they see everything (no
 * access control, or a viewer with `scoped: false`): callers then skip filtering altogether, so
 * the unscoped path costs what it did before access control. An authorizer's view that throws
 * hides the container: access control fails closed.
 */
export function scopeOf(viewer: WebViewer | undefined): Sees | undefined {
  if (!viewer?.scoped) return undefined;
  return (container) => {
    try {
      return viewer.sees(container);
    } catch {
      return false;
    }
  };
}

/** What the page shows of who is watching. */
export function presentViewer(viewer: WebViewer): WireViewer {
  return {
    user: viewer.user,
    method: viewer.method,
    groups: [...viewer.groups],
    roles: [...viewer.roles],
    scoped: viewer.scoped,
  };
}

/**
 * Viewers with the same identity see the same: an authorizer's `visibility(caller)` depends on the
 * caller alone. Browsers of one person share what is filtered for them under this key.
 */
export function identityKey(viewer: WebViewer): string {
  return JSON.stringify([viewer.user, viewer.method, viewer.groups]);
}
