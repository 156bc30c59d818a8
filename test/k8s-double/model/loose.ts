/**
 * A decoded API object of a kind the reader names (a pod, a node, a service...): the double works
 * on JSON as it arrives and validates it field by field (model/validation.ts) instead of mapping
 * every kind to a class, so its fields are read loosely.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- decoded JSON, see above
export type Loose = Record<string, any>;
