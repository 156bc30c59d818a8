import type { AccessDecision, AccessRequest, Authorizer, Caller, Visibility } from '@swarm/plugin-sdk/access';
import type { RulesConfig } from './binding.js';
import { managerLabelsIn } from './manager-labels.js';
import { placementFor } from './placement.js';
import { Reasons, describeBinding } from './reasons.js';
import { ACTION_TABLE, LABELLED_ACTIONS, OPEN_ACTIONS, ROLE_RANK, actionNeed } from './roles.js';
import { createdObject, inScope } from './scope.js';
import { BindingIndex } from './subjects.js';
import { visibilityFor } from './visibility.js';

const ALLOWED: AccessDecision = Object.freeze({ allowed: true });

/**
 * Roles bound to users and groups over an ownership scope. Synchronous and pure: a decision
 * depends on the request and the options alone, and nothing in a request is ever changed.
 */
export class RulesAuthorizer implements Authorizer {
  private readonly index: BindingIndex;

  constructor(private readonly config: RulesConfig) {
    this.index = new BindingIndex(config);
  }

  authorize(request: AccessRequest): AccessDecision {
    const { caller, action, object } = request;
    if (OPEN_ACTIONS.has(action)) return ALLOWED;
    const bindings = this.index.forCaller(caller);
    if (bindings.length === 0) return { allowed: false, reason: Reasons.noBinding(caller, action, object), rule: 'bindings' };
    const isAdmin = bindings.some((binding) => binding.role === 'admin');
    if (LABELLED_ACTIONS.has(action) && !isAdmin) {
      const set = managerLabelsIn(request.body);
      if (set.length > 0) return { allowed: false, reason: Reasons.labelsSet(caller, action, set), rule: 'manager-labels' };
    }
    const need = actionNeed(action);
    const strong = bindings.filter((binding) => ROLE_RANK[binding.role] >= ROLE_RANK[need.role]);
    if (strong.length === 0) {
      const strongest = bindings.reduce((best, binding) => (ROLE_RANK[binding.role] > ROLE_RANK[best.role] ? binding : best));
      const reason = Reasons.roleTooLow(caller, action, object, need, bindings, ACTION_TABLE.has(action));
      return { allowed: false, reason, rule: strongest.name };
    }
    const target = object ?? createdObject(action, caller);
    const granting = strong.filter((binding) =>
      need.reach === 'all' ? binding.scope === 'all' : target === undefined || inScope(binding, caller, target, this.config.images),
    );
    if (granting.length === 0) {
      const reason =
        need.reach === 'all'
          ? Reasons.needsScopeAll(caller, action, object, need, strong)
          : object === undefined
            ? Reasons.createOutOfScope(caller, action, target!, need, strong)
            : Reasons.outOfScope(caller, action, object, need, strong);
      return { allowed: false, reason, rule: strong[0]!.name };
    }
    if (action !== 'container.create') return ALLOWED;
    const placement = placementFor(granting);
    return placement.length > 0 ? { allowed: true, placement } : ALLOWED;
  }

  visibility(caller: Caller): Visibility {
    return visibilityFor(this.index.forCaller(caller), caller, this.config.images);
  }

  /** The caller's bindings in words (`role edit on team team-a (bindings[0])`), for the web view. */
  roles(caller: Caller): readonly string[] {
    const bindings = this.index.forCaller(caller);
    if (bindings.length === 0) return [];
    return bindings.map((binding) => describeBinding(binding, caller));
  }
}
