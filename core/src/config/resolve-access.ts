import type { AccessEntry, AccessSettings } from '@swarm/plugin-sdk/access';
import { configError } from './config-error.js';
import type { AccessEntryInput } from './input.js';
import { pick, type ConfigLayer } from './layers.js';
import { parseMemory } from './size.js';

const DEFAULT_AUDIT_MAX_SIZE = 100 * 1024 * 1024;
const DEFAULT_AUDIT_MAX_BACKUPS = 5;

function entry(input: AccessEntryInput): AccessEntry {
  return typeof input === 'string' ? { name: input, options: {} } : { name: input[0], options: input[1] };
}

/**
 * The access settings: each list from the highest layer that sets it. Docker AuthZ plugins
 * (`--authorization-plugin`, `authorizationPlugins`) become `docker` authorizers ahead of the
 * config's, as dockerd asks its plugins before doing anything; a token file adds its
 * authenticator after the configured ones.
 */
export function resolveAccess(layers: readonly ConfigLayer[]): AccessSettings | undefined {
  if (!layers.some((layer) => layer.input.access !== undefined)) return undefined;
  const list = (read: (access: NonNullable<ConfigLayer['input']['access']>) => AccessEntryInput[] | undefined) =>
    (pick(layers, (input) => (input.access ? read(input.access) : undefined))?.value ?? []).map(entry);
  const tokenFile = pick(layers, (input) => input.access?.tokenFile)?.value;
  const configuredAuthn = pick(layers, (input) => input.access?.authn)?.value;
  const authn = configuredAuthn ? configuredAuthn.map(entry) : [{ name: 'tls', options: {} }];
  if (tokenFile !== undefined && !authn.some((candidate) => candidate.name === 'token-file')) {
    authn.push({ name: 'token-file', options: { path: tokenFile } });
  }
  // dockerd keeps each name once (a plugin given twice is activated and asked once)
  const dockerPlugins = [...new Set(pick(layers, (input) => input.access?.authorizationPlugins)?.value ?? [])];
  return {
    authn,
    authz: [...dockerPlugins.map((plugin) => ({ name: 'docker', options: { plugin } })), ...list((access) => access.authz)],
    admission: list((access) => access.admission),
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
