import type { PolicySettings } from './options.js';
import { listOf, type RuleContext } from './request-body.js';
import { profileDigest } from './seccomp-digest.js';
import { isGoTrue, parseSecurityOpt, type SecurityOpt } from './security-opts.js';
import type { Violation } from './violation.js';

/** The SELinux types Kubernetes' baseline allows (`label=type:...`); `label=level:...` is always allowed. */
const SELINUX_TYPES = new Set(['container_t', 'container_init_t', 'container_kvm_t', 'container_engine_t']);

/** The keys dockerd reads (and the CLI's `systempaths`, Docker 25's `writable-cgroups`); it refuses others. */
const KNOWN = new Set(['seccomp', 'apparmor', 'label', 'no-new-privileges', 'systempaths', 'writable-cgroups']);

interface Refusal {
  readonly rule: string;
  readonly detail: string;
}

/**
 * `seccomp=<profile>`: the docker CLI sends a profile file's content inline, so anything but the
 * engine's default (`builtin`, or empty) is a profile the tenant wrote (`defaultAction:
 * SCMP_ACT_ALLOW` is unconfined by another name): allowed only when its digest is one the
 * operator listed.
 */
function seccompRefusal(raw: string, value: string, settings: PolicySettings): Refusal | undefined {
  if (value === '' || value === 'builtin') return undefined;
  if (value.trim().toLowerCase() === 'unconfined') return { rule: 'seccomp', detail: `: ${raw}` };
  const digest = profileDigest(value);
  if (settings.allowedSeccompProfiles.includes(digest)) return undefined;
  return { rule: 'seccomp', detail: `: an inline profile (${digest}) the operator did not list (allowedSeccompProfiles)` };
}

/** `apparmor=<name>`: a profile loaded on the engine's host; the engine's default or one the operator listed. */
function apparmorRefusal(raw: string, value: string, settings: PolicySettings): Refusal | undefined {
  if (value === '' || value === 'docker-default' || settings.allowedAppArmorProfiles.includes(value)) return undefined;
  if (value.trim().toLowerCase() === 'unconfined') return { rule: 'apparmor', detail: `: ${raw}` };
  return { rule: 'apparmor', detail: `: profile ${value} is not one the operator listed (allowedAppArmorProfiles)` };
}

/** Why an option is refused at baseline, or undefined when it is fine. */
function baselineRefusal(raw: string, opt: SecurityOpt, settings: PolicySettings): Refusal | undefined {
  const plain = (rule: string) => ({ rule, detail: `: ${raw}` });
  if (!KNOWN.has(opt.key)) return plain('security-opt');
  const unconfined = opt.value.trim().toLowerCase() === 'unconfined';
  switch (opt.key) {
    case 'seccomp':
      return seccompRefusal(raw, opt.value, settings);
    case 'apparmor':
      return apparmorRefusal(raw, opt.value, settings);
    // `/proc` and `/sys` unmasked: Kubernetes' procMount Unmasked
    case 'systempaths':
      return unconfined ? plain('proc-mount') : undefined;
    // Docker 25's writable cgroupfs lets the container change its own limits
    case 'writable-cgroups':
      return isGoTrue(opt.value) ? plain('writable-cgroups') : undefined;
    case 'label': {
      if (opt.value.startsWith('level:')) return undefined;
      if (opt.value.startsWith('type:') && SELINUX_TYPES.has(opt.value.slice('type:'.length))) return undefined;
      return plain('selinux');
    }
    default:
      return undefined;
  }
}

/**
 * Seccomp and AppArmor: the engine's default or a profile the operator listed; no unmasked system
 * paths, no SELinux labels off or custom beyond Kubernetes' set, no option dockerd does not know.
 */
export function securityOptRule(context: RuleContext): Violation | undefined {
  for (const [i, raw] of listOf<string>(context.host, 'SecurityOpt').entries()) {
    const refusal = baselineRefusal(raw, parseSecurityOpt(raw), context.settings);
    if (refusal) return { rule: refusal.rule, field: `HostConfig.SecurityOpt[${i}]`, detail: refusal.detail };
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
