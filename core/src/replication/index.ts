export type { IncomingApiRequest, ManagerRole } from './manager-role.js';
export { ReplicationController, type ReplicationControllerOptions } from './replication-controller.js';
export { prepareReplication } from './prepare-replication.js';
export { withRoleRows } from './status-rows.js';
