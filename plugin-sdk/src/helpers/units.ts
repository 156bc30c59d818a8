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
