import type { RouteHandler } from '../context.js';
import { HttpError } from '../responses.js';

/**
 * POST /session and /grpc (BuildKit). A BuildKit build is a session connection plus either a
 * `/build?version=2&session=...` call or, with buildx, a gRPC connection to the engine's own
 * BuildKit: separate hijacked connections that must all reach one engine, chosen before the
 * build's constraints (inside gRPC messages) could be read. Swarm does not pin them: it answers
 * 501 so the failure is explicit. The docker CLI 28 without buildx uses the classic builder
 * (`POST /build`), which swarm schedules like Swarm classic did.
 */
export const buildkitNotServed: RouteHandler = async () => {
  throw new HttpError(
    501,
    'BuildKit sessions are not supported by swarm: it schedules classic builds (POST /build). Build with DOCKER_BUILDKIT=0, or point buildx at one engine directly',
  );
};
