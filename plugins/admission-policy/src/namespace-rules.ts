import { textOf, type RuleContext } from './request-body.js';
import type { Violation } from './violation.js';

/**
 * The namespaces a container may not share with its host: Kubernetes' hostNetwork, hostPID and
 * hostIPC, plus what Docker adds: UTS (`--uts host` lets it set the host's name), user namespaces
 * (`--userns host` leaves a daemon's `userns-remap`, so root in it is root on the host) and cgroup
 * namespaces (`--cgroupns host` shows the host's cgroup tree). `container:<id>` is allowed: it joins
 * another container's namespace, which was admitted itself.
 */
const NAMESPACES = ['NetworkMode', 'PidMode', 'IpcMode', 'UTSMode', 'UsernsMode', 'CgroupnsMode'] as const;

export function hostNamespacesRule(context: RuleContext): Violation | undefined {
  for (const key of NAMESPACES) {
    if (textOf(context.host, key) === 'host') return { rule: 'host-namespaces', field: `HostConfig.${key}`, detail: '=host' };
  }
  return undefined;
}

export function privilegedRule(context: RuleContext): Violation | undefined {
  return context.host.fields['Privileged'] === true ? { rule: 'privileged', field: 'HostConfig.Privileged' } : undefined;
}
