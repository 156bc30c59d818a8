import { definePlugin } from '@swarm/plugin-sdk';
import type { AuthorizerFactory } from '@swarm/plugin-sdk/access';
import { parseRulesOptions } from './options.js';
import { RulesAuthorizer } from './rules-authorizer.js';

export { RulesAuthorizer, parseRulesOptions };
export { RulesErrors } from './errors.js';
export { ACTION_TABLE, OPEN_ACTIONS, ROLES, actionNeed, type ActionNeed, type Reach, type Role } from './roles.js';
export type { Binding, ImageAccess, RulesConfig, Scope } from './binding.js';

/** The `rules` authorizer's factory: the options are checked once, when the deployment is built. */
export const createRulesAuthorizer: AuthorizerFactory = (settings) => new RulesAuthorizer(parseRulesOptions(settings.options));

/** Roles (view, operate, edit, admin) bound to users and groups over an ownership scope, configured in swarm.config.js. */
export const plugin = definePlugin({
  name: '@swarm/authz-rules',
  version: '1.0.0',
  apiVersion: '^2.1.0',
  description: 'Roles (view, operate, edit, admin) bound to users and groups over an ownership scope, configured in swarm.config.js.',
  register(context) {
    context.authz('rules', { useValue: createRulesAuthorizer });
  },
});

export default plugin;
