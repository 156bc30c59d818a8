import { listOf, type RuleContext } from './request-body.js';
import type { Violation } from './violation.js';

/** Docker's default capability set (moby's `oci/caps/defaults.go`): adding one of these changes nothing. */
export const DOCKER_DEFAULT_CAPABILITIES: ReadonlySet<string> = new Set([
  'CHOWN',
  'DAC_OVERRIDE',
  'FSETID',
  'FOWNER',
  'MKNOD',
  'NET_RAW',
  'SETGID',
  'SETUID',
  'SETFCAP',
  'SETPCAP',
  'NET_BIND_SERVICE',
  'SYS_CHROOT',
  'KILL',
  'AUDIT_WRITE',
]);

/** What Kubernetes' restricted level lets a container add. */
export const RESTRICTED_CAPABILITIES: ReadonlySet<string> = new Set(['NET_BIND_SERVICE']);

/** `cap_sys_admin`, `CAP_SYS_ADMIN` and `SYS_ADMIN` are one capability to Docker. */
export function normaliseCapability(name: string): string {
  return name.trim().toUpperCase().replace(/^CAP_/, '');
}

function capabilityRule(rule: string, allowed: ReadonlySet<string>, beyond: string): (context: RuleContext) => Violation | undefined {
  return (context) => {
    for (const [i, raw] of listOf<string>(context.host, 'CapAdd').entries()) {
      const name = normaliseCapability(raw);
      if (name === 'ALL') return { rule, field: `HostConfig.CapAdd[${i}]`, detail: ': ALL adds every capability' };
      if (!allowed.has(name)) return { rule, field: `HostConfig.CapAdd[${i}]`, detail: `: ${name} is ${beyond}` };
    }
    return undefined;
  };
}

export const baselineCapabilitiesRule = capabilityRule('capabilities', DOCKER_DEFAULT_CAPABILITIES, "not in Docker's default set");
export const restrictedCapabilitiesRule = capabilityRule('capabilities-restricted', RESTRICTED_CAPABILITIES, 'not NET_BIND_SERVICE');
