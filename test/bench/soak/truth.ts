import type { ApiClient } from './client.js';
import type { Fleet } from './fleet.js';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export interface Truth {
  equal: boolean;
  /** Seconds after the load stopped until they agreed (or the time given up after). */
  seconds: number;
  managerCount: number;
  enginesCount: number;
  missing: number;
  extra: number;
}

/**
 * `docker ps -a` through the manager against the union of every engine's own list, asked again
 * until they agree: the manager learns of the last changes on its engines' event streams and
 * refreshes, so it may lag a few seconds behind; it must not stay wrong.
 */
export async function checkTruth(client: ApiClient, fleet: Fleet, timeoutMs: number): Promise<Truth> {
  const started = Date.now();
  for (;;) {
    const listed = await client.json<Array<{ Id: string }>>('/containers/json?all=1').catch(() => undefined);
    const engines = fleet.containerIds();
    const managerIds = new Set((listed ?? []).map((container) => container.Id));
    const missing = [...engines].filter((id) => !managerIds.has(id)).length;
    const extra = [...managerIds].filter((id) => !engines.has(id)).length;
    const seconds = Math.round((Date.now() - started) / 100) / 10;
    const equal = listed !== undefined && missing === 0 && extra === 0;
    if (equal || Date.now() - started > timeoutMs) {
      return { equal, seconds, managerCount: managerIds.size, enginesCount: engines.size, missing, extra };
    }
    await sleep(2000);
  }
}
