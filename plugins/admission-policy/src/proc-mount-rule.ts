import { listOf, type RuleContext } from './request-body.js';
import type { Violation } from './violation.js';

/**
 * The paths dockerd masks and makes read-only by default (moby's `oci/defaults.go`, those of every
 * release since 18.06). A body that sets `MaskedPaths` or `ReadonlyPaths` replaces the defaults,
 * as `--security-opt systempaths=unconfined` does with empty lists: Kubernetes' procMount Unmasked.
 * Lists that add paths are fine; lists that leave one of these out are not.
 */
export const SYSTEM_PATH_DEFAULTS: Readonly<Record<'MaskedPaths' | 'ReadonlyPaths', readonly string[]>> = {
  MaskedPaths: [
    '/proc/acpi',
    '/proc/kcore',
    '/proc/keys',
    '/proc/latency_stats',
    '/proc/timer_list',
    '/proc/timer_stats',
    '/proc/sched_debug',
    '/proc/scsi',
    '/sys/firmware',
  ],
  ReadonlyPaths: ['/proc/bus', '/proc/fs', '/proc/irq', '/proc/sys', '/proc/sysrq-trigger'],
};

export function procMountRule(context: RuleContext): Violation | undefined {
  for (const key of ['MaskedPaths', 'ReadonlyPaths'] as const) {
    const value = context.host.fields[key];
    if (value === undefined || value === null) continue;
    const given = new Set(listOf<string>(context.host, key));
    const missing = SYSTEM_PATH_DEFAULTS[key].find((path) => !given.has(path));
    if (missing) return { rule: 'proc-mount', field: `HostConfig.${key}`, detail: `: it leaves out ${missing}` };
  }
  return undefined;
}
