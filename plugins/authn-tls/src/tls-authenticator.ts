import type { AccessPluginSettings, AuthenticationRequest, AuthenticationResult, Authenticator } from '@swarm/plugin-sdk/access';
import { TlsAuthnErrors } from './errors.js';

/** dockerd's `UserAuthNMethod` for a client certificate. */
export const TLS_METHOD = 'TLS';

/**
 * Said to a client whose verified certificate names nobody. Kubernetes treats such a certificate
 * as no credential (the caller becomes anonymous) and dockerd passes an empty user to its AuthZ
 * plugins; both make the caller someone the operator did not mean, so this authenticator refuses.
 */
export const NO_COMMON_NAME = 'the client certificate has no subject common name (CN) to name the user';

/**
 * The caller named by the leaf of the verified client certificate chain, as Kubernetes' x509
 * authenticator reads it: user = subject CN, groups = the subject's O values, in their order.
 * No certificate: not this authenticator's caller (`undefined`), so the next one is asked.
 */
export function authenticateCertificate(request: AuthenticationRequest): AuthenticationResult {
  const leaf = request.peerCertificates[0];
  if (leaf === undefined) return undefined;
  const user = leaf.subject.CN;
  if (user === undefined || user === '') return { failed: true, reason: NO_COMMON_NAME };
  return { user, groups: [...leaf.subject.O], method: TLS_METHOD };
}

/** The `tls` authenticator's factory: it takes no options. */
export function createTlsAuthenticator(settings: AccessPluginSettings): Authenticator {
  const [unknown] = Object.keys(settings.options);
  if (unknown !== undefined) throw TlsAuthnErrors.optionUnknown({ key: unknown });
  return { authenticate: authenticateCertificate };
}
