import { Tokens } from '@swarm/plugin-sdk';
import type { AccessDecision, Authorizer, AuthorizerFactory } from '@swarm/plugin-sdk/access';
import { noopLogger, pluginProviders } from '@swarm/plugin-sdk/testing';
import plugin from '@swarm/authz-rules';

/** The factory exactly as the host gets it from the plugin's registration. */
export const rulesFactory = pluginProviders(plugin).get<AuthorizerFactory>(Tokens.Authorizer, 'rules');

/** The README's example options. */
export const EXAMPLE_OPTIONS = {
  bindings: [
    { group: 'team-a', role: 'edit', scope: 'team' },
    { user: 'alice', role: 'operate', scope: 'own' },
    { group: 'ops', role: 'view', scope: 'all' },
    { group: 'admins', role: 'admin' },
    { group: 'team-b', role: 'edit', scope: 'team', nodes: 'zone==b' },
    { group: 'team-c', role: 'view', scope: 'team' },
  ],
};

export function rules(options: Readonly<Record<string, unknown>> = EXAMPLE_OPTIONS): Authorizer {
  return rulesFactory({ options, configDir: '/', logger: noopLogger }) as Authorizer;
}

/** The reason of a denial (the test fails on an allowed decision). */
export function refusal(decision: AccessDecision | Promise<AccessDecision>): { reason: string; rule: string | undefined } {
  const settled = decision as AccessDecision;
  if (settled.allowed) throw new Error('expected a denial, got allowed');
  return { reason: settled.reason, rule: settled.rule };
}
