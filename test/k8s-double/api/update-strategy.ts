// What each served resource's REST strategy says about updates (AllowCreateOnUpdate,
// AllowUnconditionalUpdate in pkg/registry/<group>/<resource>/strategy.go), as the generic
// store's Update applies them (staging/src/k8s.io/apiserver/pkg/registry/generic/registry/store.go).
import { fieldError, GoLiteral } from '../model/field-errors.js';
import type { ResourceDef } from '../model/resources.js';
import { errors, type ApiError } from './status.js';

/** A PUT of a missing object creates it: events, endpoints and leases (their strategies say true). */
const CREATE_ON_UPDATE = new Set(['endpoints', 'events', 'leases']);

/**
 * An update must carry metadata.resourceVersion: coordination.k8s.io leases, whose strategy
 * (pkg/registry/coordination/lease/strategy.go) returns false. Every other resource served here
 * returns true (core pods, nodes, services, endpoints, namespaces, events, configmaps, secrets,
 * serviceaccounts, persistentvolumeclaims, persistentvolumes; storageclasses; endpointslices),
 * so a PUT without one overwrites whatever is there.
 */
const CONDITIONAL_UPDATE_ONLY = new Set(['coordination.k8s.io/leases']);

export const allowCreateOnUpdate = (def: ResourceDef): boolean => CREATE_ON_UPDATE.has(def.resource);

export const allowUnconditionalUpdate = (def: ResourceDef): boolean => !CONDITIONAL_UPDATE_ONLY.has(`${def.group}/${def.resource}`);

/**
 * store.go's answer to an update without a resourceVersion where one is required: 422 whose
 * qualified "kind" is the resource with its group (`leases.coordination.k8s.io "x" is invalid`),
 * the value the uint64 0 as %#v prints it.
 */
export const resourceVersionRequired = (def: ResourceDef, name: string): ApiError =>
  errors.invalid(def.group, def.resource, name, [
    fieldError.invalid('metadata.resourceVersion', new GoLiteral('0x0'), 'must be specified for an update'),
  ]);
