import { discoverySuite, leadershipSuite } from './discovery-kv-suite.js';
import { etcdStore } from './discovery-kv-fixtures.js';

// One file per store, so at most two store servers of this file run at once.
discoverySuite(etcdStore, 23610);
leadershipSuite(etcdStore, 23650);
