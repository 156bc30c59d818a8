import { definePlugin } from '@swarm/plugin-sdk';
import type { AdmissionFactory } from '@swarm/plugin-sdk/access';
import { createPolicyController } from './policy-controller.js';

export { PolicyController, createPolicyController, levelOf } from './policy-controller.js';
export { parsePolicyOptions, DEFAULT_LEVEL, type Binding, type PolicySettings } from './options.js';
export { LEVELS, type Level } from './levels.js';
export { DOCKER_DEFAULT_CAPABILITIES, RESTRICTED_CAPABILITIES } from './capabilities.js';
export { SAFE_SYSCTLS } from './sysctl-rule.js';
export { SYSTEM_PATH_DEFAULTS } from './proc-mount-rule.js';
export { PolicyErrors } from './errors.js';
export { BUILD_PARAMETERS, IMPORT_PARAMETERS, type ParameterTreatment } from './build-parameters.js';
export { FIELD_TABLE } from './field-table.js';
export { createFieldsViolation } from './allow-list-rule.js';
export type { Violation } from './violation.js';
export type { FieldRow, JudgedLevel, Treatment } from './field-treatment.js';
export { ruleNamesFor, type RuleName } from './rules.js';
export { profileDigest } from './seccomp-digest.js';
export type { HostPathEntry } from './host-paths.js';

const factory: AdmissionFactory = createPolicyController;

/** Kubernetes' PodSecurity levels (privileged, baseline, restricted) for container creates and updates, per user or group. */
export const plugin = definePlugin({
  name: '@swarm/admission-policy',
  version: '1.0.0',
  apiVersion: '^2.1.0',
  description: "Kubernetes' PodSecurity levels (privileged, baseline, restricted) for container creates and updates, per user or group.",
  register(context) {
    context.admission('policy', { useValue: factory });
  },
});

export default plugin;
