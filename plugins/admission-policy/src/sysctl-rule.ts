import { mapOf, type RuleContext } from './request-body.js';
import type { Violation } from './violation.js';

/**
 * Kubernetes' safe sysctls (Pod Security Standards, baseline, as of Kubernetes 1.32): namespaced
 * per container and isolated from the host and other containers. Everything else (`kernel.msgmax`,
 * `net.core.somaxconn`, ...) is refused; a team that needs one gets the privileged level.
 */
export const SAFE_SYSCTLS: ReadonlySet<string> = new Set([
  'kernel.shm_rmid_forced',
  'net.ipv4.ip_local_port_range',
  'net.ipv4.ip_unprivileged_port_start',
  'net.ipv4.tcp_syncookies',
  'net.ipv4.ping_group_range',
  'net.ipv4.ip_local_reserved_ports',
  'net.ipv4.tcp_keepalive_time',
  'net.ipv4.tcp_fin_timeout',
  'net.ipv4.tcp_keepalive_intvl',
  'net.ipv4.tcp_keepalive_probes',
  'net.ipv4.tcp_rmem',
  'net.ipv4.tcp_wmem',
]);

/** `net/ipv4/tcp_syncookies` is `net.ipv4.tcp_syncookies` to the kernel. */
const normalise = (name: string) => name.trim().replaceAll('/', '.');

export function sysctlsRule(context: RuleContext): Violation | undefined {
  for (const name of Object.keys(mapOf(context.host, 'Sysctls'))) {
    if (!SAFE_SYSCTLS.has(normalise(name)))
      return { rule: 'sysctls', field: `HostConfig.Sysctls[${JSON.stringify(name)}]`, detail: ': not in the safe set' };
  }
  return undefined;
}
