import { leadershipSuite } from './discovery-kv-suite.js';
import { zkStore } from './discovery-kv-fixtures.js';

leadershipSuite(zkStore, 23640);
