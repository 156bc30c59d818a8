import { replicationSuite } from './replication-suite.js';

replicationSuite({ scheme: 'zk', firstEngine: 80, storePort: 23700, managerPorts: [23710, 23711, 23712] });
