import { SdkErrors } from '../errors.js';
import { swarmDirectives } from './swarm-labels.js';
import type { ContainerConfig } from '../types/docker.js';

export type ReschedulePolicy = 'off' | 'on-node-failure';

const POLICIES: readonly string[] = ['off', 'on-node-failure'];

/**
 * The container's reschedule policy from `com.docker.swarm.reschedule-policies` (env entries
 * `reschedule:x` already moved there), `off` when none. Throws Swarm classic's texts (HTTP 400)
 * for an unknown policy or more than one.
 */
export function reschedulePolicy(config: ContainerConfig): ReschedulePolicy {
  const policies = swarmDirectives(config, 'reschedulePolicies');
  if (policies.length > 1) throw SdkErrors.reschedulePolicyTooMany();
  const [policy = 'off'] = policies;
  if (!POLICIES.includes(policy)) throw SdkErrors.reschedulePolicyInvalid({ policy });
  return policy as ReschedulePolicy;
}
