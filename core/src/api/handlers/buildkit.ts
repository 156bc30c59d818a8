import type { RouteHandler } from '../context.js';
import { CoreErrors } from '../../errors.js';

/**
 * POST /session and /grpc (BuildKit). A BuildKit build is a session connection plus either a
 * `/build?version=2&session=...` call or, with buildx, a gRPC connection to the engine's own
 * BuildKit: separate hijacked connections that must all reach one engine, chosen before the
 * build's constraints (inside gRPC messages) could be read. Swarm does not pin them: it answers
 * 501 so the failure is explicit. The docker CLI 28 without buildx uses the classic builder
 * (`POST /build`), which swarm schedules like Swarm classic did.
 */
export const buildkitNotServed: RouteHandler = async () => {
  throw CoreErrors.buildkitNotServed();
};
