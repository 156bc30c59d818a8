/*
 * The fields of BuildKit's two solve requests that both the reading (question.ts) and
 * the rewriting (engine-messages.ts) go by, so what is judged is what the engine gets.
 */

/** The frontend the manager judges the steps of (any other is refused). */
export const DOCKERFILE_FRONTEND = 'dockerfile.v0';

// control.proto's SolveRequest.
export const CONTROL = { definition: 2, frontend: 6, frontendAttrs: 7, cache: 8, entitlements: 9, frontendInputs: 10, sourcePolicy: 12 };
// gateway.proto's SolveRequest.
export const GATEWAY = {
  definition: 1,
  frontend: 2,
  frontendOpt: 3,
  final: 10,
  exporterAttr: 11,
  cacheImports: 12,
  frontendInputs: 13,
  sourcePolicies: 15,
};
