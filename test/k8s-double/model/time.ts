// metav1.Time (RFC 3339, whole seconds, UTC) and metav1.MicroTime (microseconds) as the API writes them.

export const formatTime = (date: Date): string => date.toISOString().replace(/\.\d{3}Z$/, 'Z');

export const formatMicroTime = (date: Date, micros = 0): string =>
  date.toISOString().replace(/\.(\d{3})Z$/, (_, millis: string) => `.${millis}${String(micros % 1000).padStart(3, '0')}Z`);

export const now = (): string => formatTime(new Date());
export const microNow = (): string => formatMicroTime(new Date());

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** Parses an RFC 3339 text; undefined when it is not one. */
export function parseTime(text: string): Date | undefined {
  if (!RFC3339.test(text)) return undefined;
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? undefined : date;
}
