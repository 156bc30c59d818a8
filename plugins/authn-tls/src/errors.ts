import { ErrorCodes, defineError } from '@swarm/plugin-sdk';

/** Every error the TLS authenticator raises. */
export const TlsAuthnErrors = {
  /** It reads nothing but the certificate, so an option is a config mistake worth saying. */
  optionUnknown: defineError('authn-tls.option-unknown', {
    code: ErrorCodes.CONFIG_INVALID,
    message: (p: { key: string }) => `authn "tls" takes no options, got "${p.key}"`,
  }),
} as const;
