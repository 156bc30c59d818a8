import { definePlugin } from '@swarm/plugin-sdk';
import type { AuthenticatorFactory } from '@swarm/plugin-sdk/access';
import { createTlsAuthenticator } from './tls-authenticator.js';

export { NO_COMMON_NAME, TLS_METHOD, authenticateCertificate, createTlsAuthenticator } from './tls-authenticator.js';

const factory: AuthenticatorFactory = createTlsAuthenticator;

/** Names the caller from their TLS client certificate: user = subject CN, groups = O values. */
export const plugin = definePlugin({
  name: '@swarm/authn-tls',
  version: '1.0.0',
  apiVersion: '^2.1.0',
  description: 'Names the caller from their TLS client certificate: user = subject CN, groups = O values (method TLS).',
  register(context) {
    context.authn('tls', { useValue: factory });
  },
});

export default plugin;
