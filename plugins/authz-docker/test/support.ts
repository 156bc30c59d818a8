import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Tokens, type Logger } from '@swarm/plugin-sdk';
import type { AccessRequest, AuthorizerFactory, Authorizer, Caller, WireRequest } from '@swarm/plugin-sdk/access';
import { noopLogger, pluginProviders } from '@swarm/plugin-sdk/testing';
import plugin from '@swarm/authz-docker';

export const factory = pluginProviders(plugin).get<AuthorizerFactory>(Tokens.Authorizer, 'docker');

/** A folder laid out as dockerd's three plugin folders. */
export function pluginDirs(): { root: string; socketsDir: string; etc: string; usrLib: string; options: Record<string, unknown> } {
  const root = mkdtempSync(join(tmpdir(), 'swarm-authz-docker-'));
  const socketsDir = join(root, 'run');
  const etc = join(root, 'etc');
  const usrLib = join(root, 'usr-lib');
  return { root, socketsDir, etc, usrLib, options: { socketsDir, specDirs: [etc, usrLib] } };
}

export function authorizerFor(options: Record<string, unknown>, logger: Logger = noopLogger): Promise<Authorizer> {
  return Promise.resolve(factory({ options: { retryMs: 0, ...options }, configDir: '/', logger }));
}

/** A logger keeping its warnings. */
export function warningsLogger(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  const logger = { ...noopLogger, warnings, warn: (message: unknown) => void warnings.push(String(message)), child: () => logger };
  return logger as Logger & { warnings: string[] };
}

export const alice: Caller = { user: 'alice', groups: [], method: 'TLS' };
export const anonymous: Caller = { user: 'system:anonymous', groups: ['system:unauthenticated'], method: '' };

export function accessRequest(wire: Partial<WireRequest> & { method: string; uri: string }, caller: Caller = alice): AccessRequest {
  return {
    caller,
    action: 'container.list',
    wire: { headers: {}, peerCertificates: [], ...wire },
  };
}
