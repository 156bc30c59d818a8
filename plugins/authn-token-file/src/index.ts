import { definePlugin } from '@swarm/plugin-sdk';
import type { AuthenticatorFactory } from '@swarm/plugin-sdk/access';
import { createTokenFileAuthenticator } from './token-file-authenticator.js';

export { INVALID_BEARER_TOKEN, createTokenFileAuthenticator } from './token-file-authenticator.js';
export { TOKEN_METHOD, TokenTable } from './token-table.js';
export { parseTokenFile, type TokenEntry, type TokenFileProblem, type TokenFileResult, type TokenFileWarning } from './token-file.js';
export { parseCsv, type CsvRecord, type CsvResult, type CsvSyntaxError } from './csv.js';
export { bearerToken } from './bearer.js';

const factory: AuthenticatorFactory = createTokenFileAuthenticator;

/** Names the caller from an `Authorization: Bearer` token listed in a kube-apiserver style token file. */
export const plugin = definePlugin({
  name: '@swarm/authn-token-file',
  version: '1.0.0',
  apiVersion: '^2.1.0',
  description: "Names the caller from an Authorization: Bearer token listed in a token file in kube-apiserver's --token-auth-file format.",
  register(context) {
    context.authn('token-file', { useValue: factory });
  },
});

export default plugin;
