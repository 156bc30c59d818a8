/** Mount options of a tmpfs that mount nothing of the host: no `bind`, `rbind`, `remount`, `move` or propagation. */
const TMPFS_FLAGS = new Set([
  'ro',
  'rw',
  'exec',
  'noexec',
  'nosuid',
  'nodev',
  'noatime',
  'nodiratime',
  'relatime',
  'strictatime',
  'defaults',
]);
const TMPFS_DATA = new Set(['size', 'nr_blocks', 'nr_inodes', 'mode', 'uid', 'gid', 'huge', 'mpol']);

/**
 * The first option of a comma list that is not a tmpfs option: dockerd merges `--tmpfs` options
 * and a local tmpfs volume's `o` with mount(2)'s flags, so `bind` there would bind a path instead.
 */
export function foreignTmpfsOption(options: string): string | undefined {
  return options
    .split(',')
    .filter((option) => option !== '')
    .find((option) => !TMPFS_FLAGS.has(option) && !TMPFS_DATA.has(option.split('=')[0]!));
}
