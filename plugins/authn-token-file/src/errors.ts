import { ErrorCodes, defineError } from '@swarm/plugin-sdk';

/** Every error the token file authenticator raises: all are config mistakes found at start-up. */
export const TokenFileErrors = {
  pathMissing: defineError('authn-token-file.path-missing', {
    code: ErrorCodes.CONFIG_INVALID,
    message: () => 'authn "token-file" needs option path: the token file (lines token,user,uid,"group1,group2")',
  }),
  optionUnknown: defineError('authn-token-file.option-unknown', {
    code: ErrorCodes.CONFIG_INVALID,
    message: (p: { key: string }) => `authn "token-file": unknown option "${p.key}"; known options: path`,
  }),
  unreadable: defineError('authn-token-file.unreadable', {
    code: ErrorCodes.CONFIG_INVALID,
    message: (p: { path: string; reason: string }) => `cannot read token file ${p.path}: ${p.reason}`,
  }),
  /** A line kube-apiserver would refuse too (or one with no user name, which it takes): never quotes the token. */
  lineInvalid: defineError('authn-token-file.line', {
    code: ErrorCodes.CONFIG_INVALID,
    message: (p: { path: string; line: number; reason: string }) => `token file ${p.path}, line ${p.line}: ${p.reason}`,
  }),
} as const;
