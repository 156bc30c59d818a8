import { ErrorCodes, defineError } from '@swarm/plugin-sdk';

/**
 * Every error the rules authorizer raises. Each names the option path it is about
 * (`bindings[2].role`); the host puts the config key path in front.
 */
export const RulesErrors = {
  optionsNotObject: defineError('rules.options', {
    code: ErrorCodes.CONFIG_INVALID,
    message: (p: { got: string }) => `options: an object { bindings, anonymous, images } is needed, got ${p.got}`,
  }),
  unknownOption: defineError('rules.option-unknown', {
    code: ErrorCodes.CONFIG_INVALID,
    message: (p: { path: string; key: string; known: readonly string[]; suggestion: string | undefined }) =>
      `${p.path}: unknown option "${p.key}" (${p.suggestion === undefined ? `known: ${p.known.join(', ')}` : `did you mean ${p.suggestion}?`})`,
  }),
  unknownValue: defineError('rules.value-unknown', {
    code: ErrorCodes.CONFIG_INVALID,
    message: (p: { path: string; what: string; value: unknown; known: readonly string[]; suggestion: string | undefined }) =>
      `${p.path}: unknown ${p.what} ${JSON.stringify(p.value)} (${p.suggestion === undefined ? `one of ${p.known.join(', ')}` : `did you mean ${p.suggestion}?`})`,
  }),
  invalidOption: defineError('rules.option-invalid', {
    code: ErrorCodes.CONFIG_INVALID,
    message: (p: { path: string; reason: string }) => `${p.path}: ${p.reason}`,
  }),
  invalidNodes: defineError('rules.nodes', {
    code: ErrorCodes.CONFIG_INVALID,
    message: (p: { path: string; expression: string; reason: string }) =>
      `${p.path}: ${JSON.stringify(p.expression)} is not a constraint expression (key==value or key!=value, as in -e constraint:zone==a): ${p.reason}`,
  }),
} as const;
