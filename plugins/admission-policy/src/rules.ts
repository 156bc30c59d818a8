import { baselineCapabilitiesRule, restrictedCapabilitiesRule } from './capabilities.js';
import { devicesRule } from './device-rules.js';
import type { AdmissionRequest } from '@swarm/plugin-sdk/access';
import { bindsRule, mountsRule, volumeCreateRule } from './host-path-rules.js';
import type { Level } from './levels.js';
import { hostNamespacesRule, privilegedRule } from './namespace-rules.js';
import { procMountRule } from './proc-mount-rule.js';
import type { RuleContext } from './request-body.js';
import { limitsKeptRule, resourceLimitsRule, runAsNonRootRule } from './restricted-rules.js';
import { noNewPrivilegesRule, securityOptRule } from './security-opt-rules.js';
import { shapeRule } from './shape-rule.js';
import { sysctlsRule } from './sysctl-rule.js';
import type { Rule } from './violation.js';

type Rules = readonly Rule<RuleContext>[];

/** Baseline, in the order refusals are reported: the escalations that matter most first. */
const BASELINE: Rules = [
  shapeRule,
  privilegedRule,
  hostNamespacesRule,
  bindsRule,
  mountsRule,
  devicesRule,
  baselineCapabilitiesRule,
  securityOptRule,
  procMountRule,
  sysctlsRule,
];

/** Restricted is baseline and then its own rules. */
const RESTRICTED: Rules = [...BASELINE, runAsNonRootRule, noNewPrivilegesRule, restrictedCapabilitiesRule, resourceLimitsRule];

/**
 * dockerd's update changes limits and the restart policy only (not devices, not namespaces):
 * what it cannot change was judged at create, and judging it again would refuse a caller's
 * update of a container another level created. So baseline checks only the body's shape.
 */
const BASELINE_UPDATE: Rules = [shapeRule];
const RESTRICTED_UPDATE: Rules = [...BASELINE_UPDATE, limitsKeptRule];

/**
 * An exec runs in the container's namespaces with its own user and privileges: `docker exec
 * --privileged` or `-u 0` would give what the create was refused.
 */
const BASELINE_EXEC: Rules = [shapeRule, privilegedRule];
const RESTRICTED_EXEC: Rules = [...BASELINE_EXEC, runAsNonRootRule];

/** A volume of the local driver can bind a host path (`-o o=bind -o device=/etc`): the same prefixes as binds. */
const VOLUME_CREATE: Rules = [volumeCreateRule];

/** The rules a level applies to an action; privileged applies none. */
export function rulesFor(level: Level, action: AdmissionRequest['action']): Rules {
  if (level === 'privileged') return [];
  switch (action) {
    case 'container.update':
      return level === 'restricted' ? RESTRICTED_UPDATE : BASELINE_UPDATE;
    case 'container.exec':
      return level === 'restricted' ? RESTRICTED_EXEC : BASELINE_EXEC;
    case 'volume.create':
      return VOLUME_CREATE;
    default:
      return level === 'restricted' ? RESTRICTED : BASELINE;
  }
}
