import type { AdmissionRequest, AdmissionVerdict, Caller } from '@swarm/plugin-sdk/access';
import type { ContainerConfig } from '@swarm/plugin-sdk/docker';
import { noopLogger } from '@swarm/plugin-sdk/testing';
import { createPolicyController } from '@swarm/admission-policy';

export const OPTIONS = {
  default: 'baseline',
  bindings: [
    { group: 'team-a', level: 'restricted' },
    { user: 'ci', level: 'baseline' },
    { group: 'admins', level: 'privileged' },
  ],
  allowedHostPaths: ['/data', '/var/log/apps'],
};

export const caller = (user: string, groups: string[] = []): Caller => ({ user, groups, method: 'TLS' });
export const ANONYMOUS = caller('system:anonymous', ['system:unauthenticated']);
export const ALICE = caller('alice', ['team-a']);
export const CI = caller('ci');
export const ROOT = caller('root', ['admins']);

export const controller = (options: Readonly<Record<string, unknown>> = OPTIONS) =>
  createPolicyController({ options, configDir: '/', logger: noopLogger });

/** The text the host answers with a 403, composed from the verdict as the host composes it; `allowed` when allowed. */
export function outcome(verdict: AdmissionVerdict): string {
  return verdict.allowed ? 'allowed' : `admission policy "${verdict.policy}" forbids ${verdict.field}${verdict.detail ?? ''}`;
}

/** A create whose HostConfig is `host` (and other body fields `rest`). */
export function create(host: Record<string, unknown> = {}, rest: Record<string, unknown> = {}): ContainerConfig {
  return { Image: 'busybox', ...rest, HostConfig: host };
}

export function admit(
  who: Caller,
  config: unknown,
  action: AdmissionRequest['action'] = 'container.create',
  options = OPTIONS,
): AdmissionVerdict {
  return controller(options).admit({ caller: who, action, config: config as ContainerConfig });
}

/** What restricted needs, so a case changes one thing. */
export const RESTRICTED_OK = { Memory: 256 * 1024 * 1024, NanoCpus: 500_000_000, SecurityOpt: ['no-new-privileges'] };
