import type { CallDelays } from './call-kinds.js';

/**
 * Median latency (ms) of each call against a real dockerd 20.10 on this machine (vfs storage,
 * bridge networking, 2 shared cores), measured with `test/bench/hollow/measure-engine.ts` over 20 rounds on
 * 2026-12-02. The hollow engine waits this long before answering unless told otherwise.
 */
export const MEASURED_DELAYS: CallDelays = {
  ping: 1.2,
  version: 19.7,
  info: 21.3,
  list: 1.3,
  inspect: 1.4,
  create: 14.7,
  start: 439.9,
  stop: 150,
  kill: 155.8,
  remove: 8.9,
  images: 1.4,
  networks: 1.7,
  volumes: 1.2,
};

/** `number` sets every call to that delay; a partial record overrides the measured defaults. */
export type DelayOption = number | Partial<CallDelays>;

export function resolveDelays(option: DelayOption | undefined): CallDelays {
  if (option === undefined) return MEASURED_DELAYS;
  if (typeof option === 'number') {
    const uniform = {} as Record<keyof CallDelays, number>;
    for (const kind of Object.keys(MEASURED_DELAYS) as (keyof CallDelays)[]) uniform[kind] = option;
    return uniform;
  }
  return { ...MEASURED_DELAYS, ...option };
}
