/** The engine calls a hollow engine answers, each with its own imitated latency. */
export const CALL_KINDS = [
  'ping',
  'version',
  'info',
  'list',
  'inspect',
  'create',
  'start',
  'stop',
  'kill',
  'remove',
  'images',
  'networks',
  'volumes',
] as const;

export type CallKind = (typeof CALL_KINDS)[number];

export type CallDelays = Readonly<Record<CallKind, number>>;
