import type { AdmissionRequest } from '@swarm/plugin-sdk/access';
import { allowListRule } from './allow-list-rule.js';
import { baselineCapabilitiesRule, restrictedCapabilitiesRule } from './capabilities.js';
import { fetchUrlRule, isolationRule, namingBuildParameters } from './build-rules.js';
import { cgroupParentRule } from './cgroup-rule.js';
import { devicesRule } from './device-rules.js';
import type { JudgedLevel } from './field-treatment.js';
import { hostPathRule } from './host-path-rules.js';
import { hostNamespacesRule, privilegedRule } from './namespace-rules.js';
import { networkAllowListRule, networkDriverRule, networkIpamRule, networkOptionsRule, networkSubnetsRule } from './network-rules.js';
import { procMountRule } from './proc-mount-rule.js';
import type { RuleContext } from './request-body.js';
import { limitsKeptRule, resourceLimitsRule, runAsNonRootRule } from './restricted-rules.js';
import { logOptionsRule, oomScoreRule } from './runtime-rules.js';
import { noNewPrivilegesRule, securityOptRule } from './security-opt-rules.js';
import { shapeRule } from './shape-rule.js';
import { sysctlsRule } from './sysctl-rule.js';
import type { Rule } from './violation.js';
import { volumeCreateRule, volumesRule } from './volume-rules.js';

/** Every rule by the name the field table (field-table.ts) gives it. */
const RULES = {
  malformed: shapeRule,
  privileged: privilegedRule,
  'host-namespaces': hostNamespacesRule,
  'host-path': hostPathRule,
  volumes: volumesRule,
  devices: devicesRule,
  capabilities: baselineCapabilitiesRule,
  'security-opt': securityOptRule,
  'proc-mount': procMountRule,
  sysctls: sysctlsRule,
  'cgroup-parent': cgroupParentRule,
  'log-options': logOptionsRule,
  'oom-score': oomScoreRule,
  'allow-list': allowListRule,
  'run-as-non-root': runAsNonRootRule,
  'no-new-privileges': noNewPrivilegesRule,
  'capabilities-restricted': restrictedCapabilitiesRule,
  'resource-limits': resourceLimitsRule,
  'limits-kept': limitsKeptRule,
  'volume-create': volumeCreateRule,
  isolation: isolationRule,
  'fetch-url': fetchUrlRule,
  'network-allow-list': networkAllowListRule,
  'network-driver': networkDriverRule,
  'network-options': networkOptionsRule,
  'network-ipam': networkIpamRule,
  'network-subnets': networkSubnetsRule,
} satisfies Record<string, Rule<RuleContext>>;

export type RuleName = keyof typeof RULES;

/**
 * Baseline, in the order refusals are reported: the escalations that matter most first, then
 * everything else the field table does not allow.
 */
const BASELINE: readonly RuleName[] = [
  'malformed',
  'privileged',
  'host-namespaces',
  'host-path',
  'volumes',
  'devices',
  'capabilities',
  'security-opt',
  'proc-mount',
  'sysctls',
  'cgroup-parent',
  'log-options',
  'oom-score',
  'allow-list',
];

/** Restricted is baseline and then its own rules. */
const RESTRICTED: readonly RuleName[] = [...BASELINE, 'run-as-non-root', 'no-new-privileges', 'capabilities-restricted', 'resource-limits'];

/**
 * dockerd's update changes limits and the restart policy only (not devices, not namespaces):
 * what it cannot change was judged at create, and judging it again would refuse a caller's
 * update of a container another level created. So baseline checks only the body's shape.
 */
const BASELINE_UPDATE: readonly RuleName[] = ['malformed'];
const RESTRICTED_UPDATE: readonly RuleName[] = [...BASELINE_UPDATE, 'limits-kept'];

/**
 * An exec runs in the container's namespaces with its own user and privileges: `docker exec
 * --privileged` or `-u 0` would give what the create was refused.
 */
const BASELINE_EXEC: readonly RuleName[] = ['malformed', 'privileged'];
const RESTRICTED_EXEC: readonly RuleName[] = [...BASELINE_EXEC, 'run-as-non-root'];

/** A volume of the local driver mounts what its options say (a host path, `proc`, a network share). */
const VOLUME_CREATE: readonly RuleName[] = ['volume-create'];

/**
 * A build's `RUN` steps run in a container made of the build's query (build-parameters.ts), judged
 * as the same fields of a container are, and the engine fetches its `remote`. Restricted adds
 * nothing: a step's user is the Dockerfile's `USER`, which the manager does not read, and limits
 * are the build's own; a BuildKit build's `security.insecure` entitlement runs its steps privileged
 * (`HostConfig.Privileged`, which a classic build never sets). An import (or a commit, asked about
 * as one) reaches out only through the URLs it makes the engine fetch: `fromSrc`, and the `ADD`s of
 * the build triggers it writes, which the builds on its image fetch.
 */
const BUILD: readonly RuleName[] = [
  'malformed',
  'privileged',
  'host-namespaces',
  'cgroup-parent',
  'isolation',
  'security-opt',
  'fetch-url',
];
const IMPORT: readonly RuleName[] = ['fetch-url'];

/**
 * A network's driver, its options, its address allocator and its subnet can reach the engine's host
 * (network-rules.ts); restricted allows no options, which the rules read from the level.
 */
const NETWORK: readonly RuleName[] = ['network-driver', 'network-options', 'network-ipam', 'network-subnets', 'network-allow-list'];

/** The names of the rules a level applies to an action, in order. */
export function ruleNamesFor(level: JudgedLevel, action: AdmissionRequest['action']): readonly RuleName[] {
  switch (action) {
    case 'container.update':
      return level === 'restricted' ? RESTRICTED_UPDATE : BASELINE_UPDATE;
    case 'container.exec':
      return level === 'restricted' ? RESTRICTED_EXEC : BASELINE_EXEC;
    case 'volume.create':
      return VOLUME_CREATE;
    case 'image.build':
      return BUILD;
    case 'image.import':
      return IMPORT;
    case 'network.create':
      return NETWORK;
    default:
      return level === 'restricted' ? RESTRICTED : BASELINE;
  }
}

/** The rules a level applies to an action (privileged applies none). */
export function rulesFor(level: JudgedLevel, action: AdmissionRequest['action']): readonly Rule<RuleContext>[] {
  const rules = ruleNamesFor(level, action).map((name) => RULES[name]);
  return action === 'image.build' ? rules.map(namingBuildParameters) : rules;
}
