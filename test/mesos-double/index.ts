import { MesosMasterDouble, type MesosMasterDoubleOptions } from './master.js';

export { MesosMasterDouble, type MesosMasterDoubleOptions } from './master.js';
export type { AgentSpec } from './agent.js';

/** Start a Mesos master double (see master.ts) and wait until it serves. */
export async function startMesosMaster(options: MesosMasterDoubleOptions): Promise<MesosMasterDouble> {
  const master = new MesosMasterDouble(options);
  await master.start();
  return master;
}
