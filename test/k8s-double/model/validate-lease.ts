// A Lease's spec as ValidateLeaseSpec checks it (pkg/apis/coordination/validation/validation.go).
// Its times need nothing more: a MicroTime that decodes is valid.
import { fieldError, type FieldError } from './field-errors.js';
import { isQualifiedName } from './names.js';
import type { Loose } from './loose.js';

/** validLeaseStrategies: the Kubernetes-defined coordinated leader election strategies. */
const STRATEGIES = ['OldestEmulationVersion'];

export function validateLeaseSpec(spec: Loose | undefined): FieldError[] {
  const errors: FieldError[] = [];
  if (!spec) return errors;
  if (spec.leaseDurationSeconds !== undefined && spec.leaseDurationSeconds <= 0) {
    errors.push(fieldError.invalid('spec.leaseDurationSeconds', spec.leaseDurationSeconds, 'must be greater than 0'));
  }
  if (spec.leaseTransitions !== undefined && spec.leaseTransitions < 0) {
    errors.push(fieldError.invalid('spec.leaseTransitions', spec.leaseTransitions, 'must be greater than or equal to 0'));
  }
  if (spec.strategy !== undefined) {
    // ValidateCoordinatedLeaseStrategy: a bare name must be a known one, a prefixed one a qualified name;
    // it appends "strategy" to a path that already ends in it, hence spec.strategy.strategy
    if (!spec.strategy.includes('/')) {
      if (!STRATEGIES.includes(spec.strategy)) errors.push(fieldError.notSupported('spec.strategy.strategy', spec.strategy, STRATEGIES));
    } else {
      for (const message of isQualifiedName(spec.strategy))
        errors.push(fieldError.invalid('spec.strategy.strategy', spec.strategy, message));
    }
  }
  if (spec.preferredHolder && !spec.strategy) {
    errors.push(fieldError.forbidden('spec.preferredHolder', 'may only be specified if `strategy` is defined'));
  }
  return errors;
}
