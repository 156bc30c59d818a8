import { isSharedPropagation, parseBind } from './binds.js';
import { judgeHostPath } from './host-path-rule.js';
import { listOf, mapOf, record, stringOf, type RuleContext } from './request-body.js';
import { foreignTmpfsOption } from './tmpfs-options.js';
import type { Violation } from './violation.js';

type Fields = Readonly<Record<string, unknown>>;

const PROPAGATION = 'mount-propagation';
/** The mount types baseline knows; `cluster` (swarm mode's CSI volumes) and anything newer are refused. */
const MOUNT_TYPES = new Set(['bind', 'volume', 'tmpfs', 'npipe', 'image']);

/** A bind's modes make it read-only, submounts included (`ro-non-recursive` leaves them writable). */
function bindReadOnly(modes: readonly string[]): boolean {
  const readOnly = modes.some((mode) => mode === 'ro' || mode === 'rro' || mode === 'ro-force-recursive');
  return readOnly && !modes.includes('rw') && !modes.includes('ro-non-recursive');
}

/** `-v /src:/dst[:opts]`: the source must be allowed; named and anonymous volumes are fine. */
function bindsRule(context: RuleContext): Violation | undefined {
  for (const [i, raw] of listOf<string>(context.host, 'Binds').entries()) {
    const at = `HostConfig.Binds[${i}]`;
    const bind = parseBind(raw);
    if (bind.hostPath !== undefined) {
      const use = { path: bind.hostPath, field: at, readOnly: bindReadOnly(bind.modes), readOnlyField: at, readOnlyHint: 'add :ro' };
      const refused = judgeHostPath(use, context.settings.allowedHostPaths);
      if (refused) return refused;
    }
    const shared = bind.modes.find(isSharedPropagation);
    if (shared) return { rule: PROPAGATION, field: at, detail: `: ${shared} propagation reaches the host's mounts` };
  }
  return undefined;
}

function bindMountViolation(mount: Fields, at: string, context: RuleContext): Violation | undefined {
  const options = record(mount['BindOptions']);
  const readOnly = mount['ReadOnly'] === true && options['ReadOnlyNonRecursive'] !== true;
  const use = {
    path: stringOf(mount['Source']),
    field: `${at}.Source`,
    readOnly,
    readOnlyField: mount['ReadOnly'] === true ? `${at}.BindOptions.ReadOnlyNonRecursive` : `${at}.ReadOnly`,
    readOnlyHint: mount['ReadOnly'] === true ? 'submounts stay writable' : 'readonly in --mount',
  };
  const refused = judgeHostPath(use, context.settings.allowedHostPaths);
  if (refused) return refused;
  // it would make the missing directories of the source on the host, under a read-only entry too
  if (options['CreateMountpoint'] === true)
    return { rule: 'host-path', field: `${at}.BindOptions.CreateMountpoint`, detail: ': it creates directories on the host' };
  const propagation = stringOf(options['Propagation']);
  if (isSharedPropagation(propagation))
    return { rule: PROPAGATION, field: `${at}.BindOptions.Propagation`, detail: `: ${propagation} propagation reaches the host's mounts` };
  return undefined;
}

function mountViolation(mount: Fields, at: string, context: RuleContext): Violation | undefined {
  const type = stringOf(mount['Type']);
  if (!MOUNT_TYPES.has(type))
    return { rule: 'host-path', field: `${at}.Type`, detail: `: ${JSON.stringify(type)} is not a mount type baseline allows` };
  if (type === 'npipe')
    return { rule: 'host-path', field: `${at}.Source`, detail: `: named pipe ${stringOf(mount['Source'])} is on the host` };
  return type === 'bind' ? bindMountViolation(mount, at, context) : undefined;
}

/** `--mount type=bind|npipe|...`: the same entries as binds; volumes are the `volumes` rule's. */
function mountsRule(context: RuleContext): Violation | undefined {
  for (const [i, mount] of listOf<Fields>(context.host, 'Mounts').entries()) {
    const refused = mountViolation(mount, `HostConfig.Mounts[${i}]`, context);
    if (refused) return refused;
  }
  return undefined;
}

/** `--tmpfs /dst:options`: tmpfs options only (a `bind` among them would bind a path). */
function tmpfsRule(context: RuleContext): Violation | undefined {
  for (const [target, options] of Object.entries(mapOf(context.host, 'Tmpfs'))) {
    const foreign = foreignTmpfsOption(stringOf(options));
    if (foreign !== undefined)
      return {
        rule: 'host-path',
        field: `HostConfig.Tmpfs[${JSON.stringify(target)}]`,
        detail: `: ${foreign} is not a tmpfs option baseline allows`,
      };
  }
  return undefined;
}

/** Every way a create mounts a host path: `Binds`, `Mounts`, then `Tmpfs`. */
export function hostPathRule(context: RuleContext): Violation | undefined {
  return bindsRule(context) ?? mountsRule(context) ?? tmpfsRule(context);
}
