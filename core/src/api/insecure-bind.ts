import type { ListenAddress } from './listeners.js';

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\./.test(host);
}

/**
 * dockerd's warning for a TCP listener others can reach with nothing guarding it, said once at
 * start: without `--tlsverify` anyone who reaches it is let in, and without an authorizer anyone
 * let in may do everything on every node.
 */
export function insecureBindWarning(targets: readonly ListenAddress[], verified: boolean, authorizing: boolean): string | undefined {
  if (verified || authorizing) return undefined;
  const exposed = targets.filter((target) => target.kind === 'tcp' && !isLoopback(target.host));
  if (exposed.length === 0) return undefined;
  return (
    'Binding to IP address without --tlsverify is insecure and gives root access on every node of this cluster to everyone who has access to your network: ' +
    'use --tlsverify, or configure an authorizer (access.authz in swarm.config.js, or --authorization-plugin)'
  );
}
