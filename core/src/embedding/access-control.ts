import { Tokens, isSwarmError, type Logger } from '@swarm/plugin-sdk';
import type { AccessEntry, AccessPluginSettings, AdmissionController, Authenticator, Authorizer } from '@swarm/plugin-sdk/access';
import { AccessControl, type Named } from '../access/access-control.js';
import type { Deployment } from '../deployment/deployment.js';
import { named } from '../plugins/extension-kinds.js';
import { CoreErrors } from '../errors.js';
import { defaultLimits } from '../plugins/call-limits.js';
import { timeLimited } from '../plugins/time-limited.js';
import type { ConfiguredAccessEntry } from '../config/resolve-access.js';

type AccessKind = typeof Tokens.Authenticator | typeof Tokens.Authorizer | typeof Tokens.AdmissionController;
type Factory<T> = (settings: AccessPluginSettings) => T | Promise<T>;

/** Calls each entry's factory with its options; a refusal of the options names the entry's key path. */
function build<T>(
  deployment: Deployment,
  kind: AccessKind,
  key: string,
  entries: readonly AccessEntry[],
  base: Omit<AccessPluginSettings, 'options' | 'logger'> & { logger: Logger },
): Promise<Named<T>[]> {
  return Promise.all(
    entries.map(async (entry, index) => {
      const keyPath = `access.${key}[${index}]`;
      const factory = deployment.container.resolve<Factory<T>>(named(kind, entry.name));
      if (typeof factory !== 'function') {
        throw CoreErrors.accessOptionsInvalid({ keyPath, reason: `the ${key} plugin "${entry.name}" did not provide a factory function` });
      }
      try {
        const plugin = await factory({
          options: entry.options,
          configDir: base.configDir,
          logger: base.logger.child({ [key]: entry.name }),
        });
        return { name: entry.name, plugin: limitCalls(plugin as object, key, entry, deployment) as T };
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        throw CoreErrors.accessOptionsInvalid(
          { keyPath, reason },
          { cause: error, ...(isSwarmError(error) ? { details: { code: error.code } } : {}) },
        );
      }
    }),
  );
}

/**
 * Each call held to the entry's `timeout` (or the kind's default); an admission controller whose
 * entry says `failurePolicy: 'ignore'` lets a create through unchanged when it fails.
 */
function limitCalls(plugin: object, key: string, entry: AccessEntry, deployment: Deployment): object {
  const kind = key as 'authn' | 'authz' | 'admission';
  const call = (entry as ConfiguredAccessEntry).call;
  const limits = {
    ...defaultLimits(kind),
    ...(call?.timeoutMs ? { timeoutMs: call.timeoutMs } : {}),
    ...(call?.failurePolicy ? { failurePolicy: call.failurePolicy } : {}),
  };
  return timeLimited(plugin, kind, entry.name, deployment.guard, limits, (method) =>
    method === 'admit' ? { value: { allowed: true } } : undefined,
  );
}

/** The deployment's access plugins, built from the config's `access` entries; `undefined` without any. */
export async function buildAccessControl(deployment: Deployment, configDir: string, logger: Logger): Promise<AccessControl | undefined> {
  const access = deployment.config.access;
  if (!access) return undefined;
  const base = { configDir, logger };
  const [authenticators, authorizers, admission] = await Promise.all([
    build<Authenticator>(deployment, Tokens.Authenticator, 'authn', access.authn, base),
    build<Authorizer>(deployment, Tokens.Authorizer, 'authz', access.authz, base),
    build<AdmissionController>(deployment, Tokens.AdmissionController, 'admission', access.admission, base),
  ]);
  return new AccessControl({ authenticators, authorizers, admission });
}
