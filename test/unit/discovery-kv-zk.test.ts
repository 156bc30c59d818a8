import { discoverySuite, leadershipSuite } from './discovery-kv-suite.js';
import { zkStore } from './discovery-kv-fixtures.js';

// One file per store, so at most two store servers of this file run at once.
discoverySuite(zkStore, 23600);
leadershipSuite(zkStore, 23640);
