import { ErrorCodes, defineError } from '@swarm/plugin-sdk';

/**
 * Every error the Docker AuthZ authorizer raises. The texts a client sees (`callFailed`) are
 * dockerd's word for word; the start-up ones add where to look, since only an operator reads them.
 */
export const DockerAuthzErrors = {
  optionMissing: defineError('authz-docker.option-missing', {
    code: ErrorCodes.CONFIG_INVALID,
    message: () =>
      'authz "docker" needs the option "plugin": a plugin name (as dockerd\'s --authorization-plugin) or a unix://, http:// or https:// URL',
  }),
  optionInvalid: defineError('authz-docker.option-invalid', {
    code: ErrorCodes.CONFIG_INVALID,
    message: (p: { key: string; expected: string }) => `authz "docker": option "${p.key}" must be ${p.expected}`,
  }),
  notFound: defineError('authz-docker.not-found', {
    code: ErrorCodes.PLUGIN_NOT_FOUND,
    message: (p: { name: string; looked: readonly string[] }) => `plugin "${p.name}" not found (looked for ${p.looked.join(', ')})`,
  }),
  specInvalid: defineError('authz-docker.spec-invalid', {
    code: ErrorCodes.CONFIG_INVALID,
    message: (p: { path: string; reason: string }) => `authorization plugin spec ${p.path}: ${p.reason}`,
  }),
  /** dockerd refuses to start with the same `legacy plugin: ...` text. */
  activationFailed: defineError('authz-docker.activation-failed', {
    code: ErrorCodes.PLUGIN_LOAD_FAILED,
    message: (p: { name: string; reason: string }) => `authorization plugin ${p.name}: legacy plugin: ${p.reason}`,
  }),
  /** dockerd's `plugin NAME failed with error: ...`, a 500 as the engine answers it. */
  callFailed: defineError('authz-docker.call-failed', {
    code: ErrorCodes.PLUGIN_FAILED,
    httpStatus: 500,
    message: (p: { name: string; reason: string }) => `plugin ${p.name} failed with error: ${p.reason}`,
  }),
  /** moby's refusal of a JSON body its plugins cannot be shown whole (a 500, as the engine answers it). */
  bodyTooLarge: defineError('authz-docker.body-too-large', {
    code: ErrorCodes.PLUGIN_FAILED,
    httpStatus: 500,
    message: (p: { limit: number }) => `request body too large for authorization plugin: size exceeds ${p.limit} bytes`,
  }),
} as const;

/**
 * A failure worded as dockerd's plugin client and Go's encoding/json word it (`AuthZPlugin.AuthZReq:
 * ...`, `Post "...": EOF`, `invalid character ...`). Never shown as is: `callFailed` or
 * `activationFailed` wrap its text.
 */
export class PluginWireError extends Error {
  override readonly name = 'PluginWireError';
}
