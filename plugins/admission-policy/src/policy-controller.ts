import type { AccessPluginSettings, AdmissionController, AdmissionRequest, AdmissionVerdict, Caller } from '@swarm/plugin-sdk/access';
import type { Level } from './levels.js';
import { parsePolicyOptions, type PolicySettings } from './options.js';
import { ruleContext } from './request-body.js';
import { rulesFor } from './rules.js';
import { firstViolation } from './violation.js';

/** The level of a caller: the first binding that names them (by user, or by a group they are in), else the default. */
export function levelOf(caller: Caller, settings: PolicySettings): Level {
  const binding = settings.bindings.find((candidate) =>
    'user' in candidate ? candidate.user === caller.user : caller.groups.includes(candidate.group),
  );
  return binding?.level ?? settings.defaultLevel;
}

/**
 * Judges creates and updates against the caller's level. It amends nothing: like Kubernetes'
 * PodSecurity admission it only validates, so what runs is what the client sent and what
 * `docker inspect` shows; the refusal names the field to change instead.
 */
export class PolicyController implements AdmissionController {
  constructor(private readonly settings: PolicySettings) {}

  admit(request: AdmissionRequest): AdmissionVerdict {
    const level = levelOf(request.caller, this.settings);
    if (level === 'privileged') return { allowed: true };
    const violation = firstViolation(rulesFor(level, request.action), ruleContext(request, this.settings, level));
    if (!violation) return { allowed: true };
    const { rule, field, detail } = violation;
    return detail === undefined ? { allowed: false, policy: level, rule, field } : { allowed: false, policy: level, rule, field, detail };
  }
}

/** The `policy` admission factory: options are checked here, once, when the host builds it. */
export function createPolicyController(settings: AccessPluginSettings): PolicyController {
  return new PolicyController(parsePolicyOptions(settings.options, settings.configDir));
}
