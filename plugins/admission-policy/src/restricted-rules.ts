import { numberOf, textOf, type RuleContext } from './request-body.js';
import type { Violation } from './violation.js';

/**
 * Restricted runs as a numeric UID other than 0 (`--user 1000`, `1000:1000`). A user name is
 * refused too: it is looked up in the image's /etc/passwd on the engine, where it may be root, and
 * the manager cannot see that file (the kubelet refuses a non-numeric user under runAsNonRoot for
 * the same reason). An unset user is the image's, which is root for most images.
 */
export function runAsNonRootRule(context: RuleContext): Violation | undefined {
  const user = textOf({ fields: context.body, prefix: '' }, 'User').trim();
  if (user === '') return { rule: 'run-as-non-root', field: 'User', detail: ' unset: the image may run as root; give a UID (--user 1000)' };
  const name = user.split(':')[0]!;
  if (!/^\d+$/.test(name)) {
    const root = name === 'root';
    return {
      rule: 'run-as-non-root',
      field: 'User',
      detail: root ? `: ${user} is root` : `: ${user} is a name, which may be root in the image; give a UID`,
    };
  }
  return Number(name) === 0 ? { rule: 'run-as-non-root', field: 'User', detail: `: ${user} is root` } : undefined;
}

/**
 * Restricted needs a memory limit and a CPU limit. `NanoCpus` (`--cpus`) or `CpuQuota`
 * (`--cpu-quota`) limit CPU; `CpuShares` does not count: it is a weight between busy containers,
 * and caps nothing on an idle host.
 */
export function resourceLimitsRule(context: RuleContext): Violation | undefined {
  const host = context.host;
  const memory = numberOf(host, 'Memory');
  if (!((memory ?? 0) > 0))
    return { rule: 'resource-limits', field: 'HostConfig.Memory', detail: `${given(memory)}: restricted needs a memory limit (--memory)` };
  const nanoCpus = numberOf(host, 'NanoCpus');
  if (!((nanoCpus ?? 0) > 0) && !((numberOf(host, 'CpuQuota') ?? 0) > 0))
    return {
      rule: 'resource-limits',
      field: 'HostConfig.NanoCpus',
      detail: `${given(nanoCpus)}: restricted needs a CPU limit (--cpus or --cpu-quota)`,
    };
  return undefined;
}

/** ` unset` for an absent or 0 limit (0 is Docker's "no limit"), `=-1` for another value. */
const given = (value: number | undefined) => (value === undefined || value === 0 ? ' unset' : `=${value}`);

/**
 * An update may not lift a restricted container's limits. In an update 0 means "leave it as it
 * is" to Docker, and the docker CLI sends 0 for every flag not given (the host merges those zeros
 * into the HostConfig it asks about), so only a negative value, which removes a limit
 * (`--cpu-quota -1`), is refused.
 */
export function limitsKeptRule(context: RuleContext): Violation | undefined {
  for (const part of context.resources) {
    for (const key of ['Memory', 'NanoCpus', 'CpuQuota']) {
      const value = numberOf(part, key);
      if (value !== undefined && value < 0)
        return { rule: 'resource-limits', field: `${part.prefix}${key}`, detail: `: ${value} removes the limit restricted needs` };
    }
  }
  return undefined;
}
