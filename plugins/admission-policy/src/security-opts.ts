/** One `HostConfig.SecurityOpt` entry, read as dockerd's `parseSecurityOpt` reads it. */
export interface SecurityOpt {
  /** `seccomp`, `apparmor`, `label`, `no-new-privileges`, ... (lower case). */
  readonly key: string;
  readonly value: string;
}

/**
 * `key=value`, or the deprecated `key:value` when there is no `=`; the bare words
 * `no-new-privileges` (on) and `disable` (SELinux labels off) are dockerd's shorthands.
 */
export function parseSecurityOpt(raw: string): SecurityOpt {
  const opt = raw.trim();
  if (opt === 'no-new-privileges') return { key: 'no-new-privileges', value: 'true' };
  if (opt === 'disable') return { key: 'label', value: 'disable' };
  const separator = opt.includes('=') ? '=' : ':';
  const at = opt.indexOf(separator);
  return at < 0 ? { key: opt.toLowerCase(), value: '' } : { key: opt.slice(0, at).toLowerCase(), value: opt.slice(at + 1) };
}

/** Go's `strconv.ParseBool` true values, which dockerd uses for boolean options. */
export function isGoTrue(value: string): boolean {
  return ['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value);
}
