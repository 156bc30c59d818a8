import type { AccessEntry, AccessSettings } from '@swarm/plugin-sdk/access';
import { configError } from './config-error.js';
import type { AccessEntryInput } from './input.js';
import { pick, type ConfigLayer, type ConfigOrigin } from './layers.js';
import { resolveAccessCall, type AccessCallSettings } from './plugin-entries.js';
import { parseMemory } from './size.js';

const DEFAULT_AUDIT_MAX_SIZE = 100 * 1024 * 1024;
const DEFAULT_AUDIT_MAX_BACKUPS = 5;

/** An access entry as the host builds it: with its call settings (the tuple's third element), checked. */
export interface ConfiguredAccessEntry extends AccessEntry {
  readonly call?: AccessCallSettings;
}

function entryOf(kind: string, origin: ConfigOrigin) {
  return (input: AccessEntryInput, index: number): ConfiguredAccessEntry => {
    if (typeof input === 'string') return { name: input, options: {} };
    const call = resolveAccessCall(origin, kind, index, input[2]);
    return { name: input[0], options: input[1], ...(call ? { call } : {}) };
  };
}

/**
 * The access settings: each list from the highest layer that sets it. Docker AuthZ plugins
 * (`--authorization-plugin`, `authorizationPlugins`) become `docker` authorizers ahead of the
 * config's, as dockerd asks its plugins before doing anything; a token file adds its
 * authenticator after the configured ones.
 */
export function resolveAccess(layers: readonly ConfigLayer[]): AccessSettings | undefined {
  if (!layers.some((layer) => layer.input.access !== undefined)) return undefined;
  const list = (kind: string, read: (access: NonNullable<ConfigLayer['input']['access']>) => AccessEntryInput[] | undefined) => {
    const picked = pick(layers, (input) => (input.access ? read(input.access) : undefined));
    return (picked?.value ?? []).map(entryOf(kind, picked?.origin ?? 'defaults'));
  };
  const tokenFile = pick(layers, (input) => input.access?.tokenFile)?.value;
  const configuredAuthn = pick(layers, (input) => input.access?.authn)?.value;
  const authn: ConfiguredAccessEntry[] = configuredAuthn ? list('authn', (access) => access.authn) : [{ name: 'tls', options: {} }];
  if (tokenFile !== undefined && !authn.some((candidate) => candidate.name === 'token-file')) {
    authn.push({ name: 'token-file', options: { path: tokenFile } });
  }
  // dockerd keeps each name once (a plugin given twice is activated and asked once)
  const dockerPlugins = [...new Set(pick(layers, (input) => input.access?.authorizationPlugins)?.value ?? [])];
  return {
    authn,
    authz: [...dockerPlugins.map((plugin) => ({ name: 'docker', options: { plugin } })), ...list('authz', (access) => access.authz)],
    admission: list('admission', (access) => access.admission),
    managersGroup: pick(layers, (input) => input.access?.managersGroup)?.value,
    audit: resolveAudit(layers),
  };
}

function resolveAudit(layers: readonly ConfigLayer[]): AccessSettings['audit'] {
  const path = pick(layers, (input) => input.access?.audit?.path);
  if (!path) return undefined;
  const size = pick(layers, (input) => input.access?.audit?.maxSize);
  let maxSizeBytes = DEFAULT_AUDIT_MAX_SIZE;
  if (size) {
    try {
      maxSizeBytes = typeof size.value === 'number' ? size.value : parseMemory(size.value);
    } catch {
      throw configError(size.origin, 'access.audit.maxSize', `invalid size "${size.value}": write bytes or a size such as "100m" or "1g"`);
    }
    if (maxSizeBytes < 1024) throw configError(size.origin, 'access.audit.maxSize', 'should be at least 1k');
  }
  const backups = pick(layers, (input) => input.access?.audit?.maxBackups);
  if (backups && backups.value < 0) throw configError(backups.origin, 'access.audit.maxBackups', 'should not be negative');
  return { path: path.value, maxSizeBytes, maxBackups: backups?.value ?? DEFAULT_AUDIT_MAX_BACKUPS };
}
