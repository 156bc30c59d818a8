import { replicationSuite } from './replication-suite.js';

replicationSuite({ scheme: 'etcd', firstEngine: 82, storePort: 23702, managerPorts: [23720, 23721, 23722] });
