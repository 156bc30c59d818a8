import type { ManagerRole } from './manager-role.js';

/**
 * /info's SystemStatus on a replicated manager: its own `Role` (and `Primary`) rows replace any
 * `Role` row the driver reports, since only the election knows which role this manager has.
 */
export function withRoleRows(role: ManagerRole | undefined, clusterRows: Array<[string, string]>): Array<[string, string]> {
  if (!role) return clusterRows;
  return [...role.statusRows(), ...clusterRows.filter(([key]) => key !== 'Role')];
}
