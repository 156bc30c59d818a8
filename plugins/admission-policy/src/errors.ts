import { ErrorCodes, defineError } from '@swarm/plugin-sdk';

/**
 * Every error the policy raises: all of them are mistakes in its options, found when the host
 * builds it. `path` is the option's path inside the entry (`bindings[1].level`); the host puts
 * the config's own key path in front.
 */
export const PolicyErrors = {
  optionUnknown: defineError('admission-policy.option-unknown', {
    code: ErrorCodes.CONFIG_INVALID,
    message: (p: { path: string; known: readonly string[] }) =>
      `admission "policy": unknown option ${p.path}; known options: ${p.known.join(', ')}`,
  }),
  optionType: defineError('admission-policy.option-type', {
    code: ErrorCodes.CONFIG_INVALID,
    message: (p: { path: string; expected: string; got: unknown }) =>
      `admission "policy": option ${p.path} must be ${p.expected}, got ${JSON.stringify(p.got) ?? String(p.got)}`,
  }),
  levelUnknown: defineError('admission-policy.level-unknown', {
    code: ErrorCodes.CONFIG_INVALID,
    message: (p: { path: string; got: unknown; levels: readonly string[] }) =>
      `admission "policy": option ${p.path} must be one of ${p.levels.join(', ')}, got ${JSON.stringify(p.got) ?? String(p.got)}`,
  }),
  bindingSubject: defineError('admission-policy.binding-subject', {
    code: ErrorCodes.CONFIG_INVALID,
    message: (p: { path: string }) => `admission "policy": option ${p.path} needs exactly one of user and group`,
  }),
  hostPathRelative: defineError('admission-policy.host-path-relative', {
    code: ErrorCodes.CONFIG_INVALID,
    message: (p: { path: string; got: string }) =>
      `admission "policy": option ${p.path} must be an absolute path (/data), got ${JSON.stringify(p.got)}`,
  }),
  hostPathUnderWritable: defineError('admission-policy.host-path-under-writable', {
    code: ErrorCodes.CONFIG_INVALID,
    message: (p: { path: string; got: string; writable: string }) =>
      `admission "policy": option ${p.path} (${p.got}) is under the writable entry ${p.writable}: a container could replace it with a symbolic link`,
  }),
  seccompProfile: defineError('admission-policy.seccomp-profile', {
    code: ErrorCodes.CONFIG_INVALID,
    message: (p: { path: string; got: string; reason: string }) =>
      `admission "policy": option ${p.path} must be a sha256:<64 hex digits> digest or a readable JSON profile file, got ${JSON.stringify(p.got)}: ${p.reason}`,
  }),
  allowedUrlInvalid: defineError('admission-policy.allowed-url-invalid', {
    code: ErrorCodes.CONFIG_INVALID,
    message: (p: { path: string; got: string; reason: string }) =>
      `admission "policy": option ${p.path} must be an http, https, git or ssh URL prefix (https://git.example.com/team-a/), got ${JSON.stringify(p.got)}: ${p.reason}`,
  }),
} as const;
