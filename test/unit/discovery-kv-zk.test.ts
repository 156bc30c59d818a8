import { discoverySuite } from './discovery-kv-suite.js';
import { zkStore } from './discovery-kv-fixtures.js';

discoverySuite(zkStore, 23600);
