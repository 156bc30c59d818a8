import { listOf, type RuleContext } from './request-body.js';
import type { Violation } from './violation.js';

type Fields = Readonly<Record<string, unknown>>;

const RULE = 'devices';

const detailOf = (what: unknown) => (typeof what === 'string' && what !== '' ? `: ${what}` : undefined);

/**
 * `--device` and `--device-cgroup-rule` give the container host devices. `--gpus` (a device request
 * of the nvidia or default driver) is allowed: like a Kubernetes extended resource, what it
 * exposes is the GPU the host's runtime hands out, set up by the host's administrator. A request
 * of the `cdi` driver is what `docker run --device vendor.com/class=name` sends since Docker 25,
 * so it is refused as `--device` is.
 */
export function devicesRule(context: RuleContext): Violation | undefined {
  for (const part of context.resources) {
    const device = listOf<Fields>(part, 'Devices')[0];
    if (device) return { rule: RULE, field: `${part.prefix}Devices[0]`, detail: detailOf(device['PathOnHost']) };
    const cgroupRule = listOf<string>(part, 'DeviceCgroupRules')[0];
    if (cgroupRule !== undefined) return { rule: RULE, field: `${part.prefix}DeviceCgroupRules[0]`, detail: `: ${cgroupRule}` };
    const requests = listOf<Fields>(part, 'DeviceRequests');
    const cdi = requests.findIndex((request) => request['Driver'] === 'cdi');
    if (cdi >= 0) {
      const ids = requests[cdi]!['DeviceIDs'];
      return {
        rule: RULE,
        field: `${part.prefix}DeviceRequests[${cdi}]`,
        detail: detailOf(Array.isArray(ids) ? `CDI ${ids.join(', ')}` : 'CDI'),
      };
    }
  }
  return undefined;
}
