import { posix } from 'node:path';
import { textOf, type RuleContext } from './request-body.js';
import type { Violation } from './violation.js';

const RULE = 'cgroup-parent';
const SLICE = '.slice';
/** A container's own cgroup: `<parent>/<ID>` (cgroupfs) or `docker-<ID>.scope` (systemd). */
const CONTAINER_CGROUP = /^(docker-)?[0-9a-f]{64}(\.scope)?$/;

/** `/tenants`, `tenants` and `/tenants/` are one cgroup path to compare. */
const asPath = (value: string) => posix.normalize(`/${value}`).replace(/(.)\/$/, '$1');

/**
 * Under an allowed parent: by whole path segments for cgroupfs paths (`/tenants` allows
 * `/tenants/a`), by systemd's naming for slices (`tenants.slice` allows `tenants-a.slice`, which
 * systemd places inside it).
 */
function isUnderParent(value: string, parent: string): boolean {
  if (parent.endsWith(SLICE) && value.endsWith(SLICE)) return value === parent || value.startsWith(`${parent.slice(0, -SLICE.length)}-`);
  const path = asPath(value);
  const prefix = asPath(parent);
  return prefix === '/' || path === prefix || path.startsWith(`${prefix}/`);
}

/**
 * `--cgroup-parent` places the container's cgroup anywhere in the host's tree: inside another
 * team's container (its processes then show in their `docker top` and count against their limits)
 * or outside the engine's accounting. Baseline allows only what is under an operator's
 * `allowedCgroupParents`, without `..`. `Cgroup` (a `container:<id>` cgroup, which dockerd has never
 * read) is refused outright.
 */
export function cgroupParentRule(context: RuleContext): Violation | undefined {
  const cgroup = textOf(context.host, 'Cgroup');
  if (cgroup !== '') return { rule: RULE, field: 'HostConfig.Cgroup', detail: `: ${cgroup} names a cgroup outside the container's own` };
  const parent = textOf(context.host, 'CgroupParent');
  if (parent === '') return undefined;
  const allowed = context.settings.allowedCgroupParents;
  if (parent.split('/').includes('..')) return { rule: RULE, field: 'HostConfig.CgroupParent', detail: `: ${parent} has a .. segment` };
  if (!allowed.some((entry) => isUnderParent(parent, entry))) {
    const where = allowed.length === 0 ? 'not allowed (allowedCgroupParents is empty)' : `outside ${allowed.join(', ')}`;
    return { rule: RULE, field: 'HostConfig.CgroupParent', detail: `: ${parent} is ${where}` };
  }
  // another container under the same allowed parent: inside it, a process shows in their docker top
  if (parent.split('/').some((segment) => CONTAINER_CGROUP.test(segment)))
    return { rule: RULE, field: 'HostConfig.CgroupParent', detail: `: ${parent} names a container's own cgroup` };
  return undefined;
}
