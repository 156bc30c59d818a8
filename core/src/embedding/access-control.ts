import { Tokens, isSwarmError, type Logger } from '@swarm/plugin-sdk';
import type { AccessEntry, AccessPluginSettings, AdmissionController, Authenticator, Authorizer } from '@swarm/plugin-sdk/access';
import { AccessControl, type Named } from '../access/access-control.js';
import type { Deployment } from '../deployment/deployment.js';
import { named } from '../plugins/extension-kinds.js';
import { CoreErrors } from '../errors.js';
import { defaultLimits, type CallLimits } from '../plugins/call-limits.js';
import { isolatedAccessEntry } from '../deployment/build-deployment.js';
import { ISOLATED_SYNC_LIMIT_MS, IsolatedAccessPlugin } from '../plugins/isolation/isolated-access.js';
import { ACCESS_START_LIMIT_MS } from '../plugins/isolation/access-generation.js';
import { isolatedAccessPlugin } from '../plugins/isolation/access-hooks.js';
import { timeLimited } from '../plugins/time-limited.js';
import type { ConfiguredAccessEntry } from '../config/resolve-access.js';

type AccessKind = typeof Tokens.Authenticator | typeof Tokens.Authorizer | typeof Tokens.AdmissionController;
type AccessKey = 'authn' | 'authz' | 'admission';
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
      const logger = base.logger.child({ [key]: entry.name });
      const limits = limitsOf(key, entry);
      const isolatedEntry = isolatedAccessEntry(deployment, key as AccessKey, entry.name);
      if (isolatedEntry !== undefined) {
        try {
          const host = new IsolatedAccessPlugin({
            entry: isolatedEntry,
            kind: key as AccessKey,
            token: kind,
            name: entry.name,
            options: entry.options,
            configDir: base.configDir,
            logger,
            limitMs: limits.timeoutMs,
            syncLimitMs: Math.min(limits.timeoutMs, ISOLATED_SYNC_LIMIT_MS),
            guard: deployment.guard,
          });
          const plugin = await isolatedAccessPlugin(host);
          // the worker holds each call to the limit itself (and ends a hung one): this one only backs it up
          const backstop = { ...limits, timeoutMs: limits.timeoutMs + ACCESS_START_LIMIT_MS };
          return { name: entry.name, plugin: limitCalls(plugin, key, entry.name, backstop, deployment) as T };
        } catch (error) {
          throw optionsRefused(keyPath, error);
        }
      }
      const factory = deployment.container.resolve<Factory<T>>(named(kind, entry.name));
      if (typeof factory !== 'function') {
        throw CoreErrors.accessOptionsInvalid({ keyPath, reason: `the ${key} plugin "${entry.name}" did not provide a factory function` });
      }
      try {
        const plugin = await factory({ options: entry.options, configDir: base.configDir, logger });
        return { name: entry.name, plugin: limitCalls(plugin as object, key, entry.name, limits, deployment) as T };
      } catch (error) {
        throw optionsRefused(keyPath, error);
      }
    }),
  );
}

function optionsRefused(keyPath: string, error: unknown): Error {
  const reason = error instanceof Error ? error.message : String(error);
  return CoreErrors.accessOptionsInvalid(
    { keyPath, reason },
    { cause: error, ...(isSwarmError(error) ? { details: { code: error.code } } : {}) },
  );
}

/** The entry's `timeout` (or the kind's default) and `failurePolicy`. */
function limitsOf(key: string, entry: AccessEntry): CallLimits {
  const call = (entry as ConfiguredAccessEntry).call;
  return {
    ...defaultLimits(key as AccessKey),
    ...(call?.timeoutMs ? { timeoutMs: call.timeoutMs } : {}),
    ...(call?.failurePolicy ? { failurePolicy: call.failurePolicy } : {}),
  };
}

/**
 * Each call held to the limits; an admission controller whose entry says `failurePolicy: 'ignore'`
 * lets a create through unchanged when it fails.
 */
function limitCalls(plugin: object, key: string, name: string, limits: CallLimits, deployment: Deployment): object {
  return timeLimited(plugin, key as AccessKey, name, deployment.guard, limits, (method) =>
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
