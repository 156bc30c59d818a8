/**
 * Log lines as Swarm classic wrote them (logrus' text format: `time="..." level=info msg="..."
 * key=value`), for people and for journald. Under journald each line starts with its syslog
 * priority (`<6>`), which journald reads (`SyslogLevelPrefix=`, on by default) so that
 * `journalctl -p warning` and the journal's colours mean something.
 */

/** pino's numeric levels, in logrus' names (logrus says `warning`, and has no `trace` below debug but accepts it). */
const LEVEL_NAMES: Readonly<Record<number, string>> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warning', 50: 'error', 60: 'fatal' };
/** syslog priorities: debug 7, info 6, warning 4, error 3, critical 2. */
const PRIORITIES: Readonly<Record<number, number>> = { 10: 7, 20: 7, 30: 6, 40: 4, 50: 3, 60: 2 };

/** Keys written first, in this order; the rest follow sorted, as logrus sorts them. */
const LEADING = new Set(['time', 'level', 'msg']);

/** A value bare when logrus would leave it bare (letters, digits and `-._/@^+`), quoted otherwise. */
function formatValue(value: unknown): string {
  const text =
    typeof value === 'string'
      ? value
      : value !== null && typeof value === 'object'
        ? (errorText(value as Record<string, unknown>) ?? JSON.stringify(value))
        : String(value);
  return text !== '' && /^[A-Za-z0-9\-._/@^+]+$/.test(text) ? text : JSON.stringify(text);
}

/** pino's serialized error (`{ type, message, stack }`): its message. */
function errorText(value: Record<string, unknown>): string | undefined {
  return typeof value['message'] === 'string' && typeof value['type'] === 'string' ? value['message'] : undefined;
}

/** One pino JSON record as a text line (newline included). */
export function textLine(record: Readonly<Record<string, unknown>>, journald: boolean): string {
  const level = typeof record['level'] === 'number' ? record['level'] : 30;
  const time = typeof record['time'] === 'number' ? new Date(record['time']).toISOString() : new Date().toISOString();
  const parts = [`time=${JSON.stringify(time)}`, `level=${LEVEL_NAMES[level] ?? level}`, `msg=${formatValue(record['msg'] ?? '')}`];
  for (const key of Object.keys(record).sort()) {
    if (LEADING.has(key)) continue;
    // logrus names an error `error`; pino's key for it is `err`.
    parts.push(`${key === 'err' ? 'error' : key}=${formatValue(record[key])}`);
  }
  const prefix = journald ? `<${PRIORITIES[level] ?? 6}>` : '';
  return `${prefix}${parts.join(' ')}\n`;
}

/**
 * Whether `fd` is connected to the journal: systemd sets `$JOURNAL_STREAM` to the device and
 * inode of the stream it gave the service, which stay the same only while the output goes there.
 */
export function writesToJournal(stat: { dev: number; ino: number }, journalStream: string | undefined): boolean {
  if (!journalStream) return false;
  const [dev, ino] = journalStream.split(':');
  return dev === String(stat.dev) && ino === String(stat.ino);
}
