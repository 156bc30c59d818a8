import { listOf, type RuleContext } from './request-body.js';
import { isGoTrue, parseSecurityOpt, type SecurityOpt } from './security-opts.js';
import type { Violation } from './violation.js';

/** The SELinux types Kubernetes' baseline allows (`label=type:...`); `label=level:...` is always allowed. */
const SELINUX_TYPES = new Set(['container_t', 'container_init_t', 'container_kvm_t', 'container_engine_t']);

/** The rule an option breaks at baseline, or undefined when it is fine. */
function baselineRuleFor(opt: SecurityOpt): string | undefined {
  const unconfined = opt.value.trim().toLowerCase() === 'unconfined';
  switch (opt.key) {
    case 'seccomp':
      return unconfined ? 'seccomp' : undefined;
    case 'apparmor':
      return unconfined ? 'apparmor' : undefined;
    // `/proc` and `/sys` unmasked: Kubernetes' procMount Unmasked
    case 'systempaths':
      return unconfined ? 'proc-mount' : undefined;
    // Docker 25's writable cgroupfs lets the container change its own limits
    case 'writable-cgroups':
      return isGoTrue(opt.value) ? 'writable-cgroups' : undefined;
    case 'label': {
      if (opt.value.startsWith('level:')) return undefined;
      if (opt.value.startsWith('type:') && SELINUX_TYPES.has(opt.value.slice('type:'.length))) return undefined;
      return 'selinux';
    }
    default:
      return undefined;
  }
}

/** No seccomp or AppArmor `unconfined`, no unmasked system paths, no SELinux labels off or custom beyond Kubernetes' set. */
export function securityOptRule(context: RuleContext): Violation | undefined {
  for (const [i, raw] of listOf<string>(context.host, 'SecurityOpt').entries()) {
    const rule = baselineRuleFor(parseSecurityOpt(raw));
    if (rule) return { rule, field: `HostConfig.SecurityOpt[${i}]`, detail: `: ${raw}` };
  }
  return undefined;
}

/** Restricted: `no-new-privileges` (Kubernetes' allowPrivilegeEscalation: false), set and not turned off again. */
export function noNewPrivilegesRule(context: RuleContext): Violation | undefined {
  const opts = listOf<string>(context.host, 'SecurityOpt');
  const last = opts.map(parseSecurityOpt).findLastIndex((opt) => opt.key === 'no-new-privileges');
  if (last < 0)
    return {
      rule: 'privilege-escalation',
      field: 'HostConfig.SecurityOpt',
      detail: ' without no-new-privileges (--security-opt no-new-privileges)',
    };
  if (!isGoTrue(parseSecurityOpt(opts[last]!).value))
    return { rule: 'privilege-escalation', field: `HostConfig.SecurityOpt[${last}]`, detail: `: ${opts[last]!}` };
  return undefined;
}
