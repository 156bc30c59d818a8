import { leadershipSuite } from './discovery-kv-suite.js';
import { etcdStore } from './discovery-kv-fixtures.js';

leadershipSuite(etcdStore, 23650);
