const BINARY_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB', 'ZiB', 'YiB'];

/** Docker's units.BytesSize (`%.4g` with binary units), as Swarm classic prints memory: 0 B, 1.953 GiB, 512 MiB. */
export function bytesSize(bytes: number): string {
  let size = bytes;
  let unit = 0;
  while (size >= 1024 && unit < BINARY_UNITS.length - 1) {
    size /= 1024;
    unit++;
  }
  return `${Number(size.toPrecision(4))} ${BINARY_UNITS[unit]}`;
}

/** go-units' HumanDuration, the words docker prints in STATUS. */
export function humanDuration(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < 1) return 'Less than a second';
  if (seconds === 1) return '1 second';
  if (seconds < 60) return `${seconds} seconds`;
  const minutes = Math.floor(ms / 60_000);
  if (minutes === 1) return 'About a minute';
  if (minutes < 60) return `${minutes} minutes`;
  const hours = Math.floor(ms / 3_600_000 + 0.5);
  if (hours === 1) return 'About an hour';
  if (hours < 48) return `${hours} hours`;
  if (hours < 24 * 7 * 2) return `${Math.floor(hours / 24)} days`;
  if (hours < 24 * 30 * 2) return `${Math.floor(hours / 24 / 7)} weeks`;
  if (hours < 24 * 365 * 2) return `${Math.floor(hours / 24 / 30)} months`;
  return `${Math.floor(ms / 3_600_000 / 24 / 365)} years`;
}
