import { discoverySuite } from './discovery-kv-suite.js';
import { etcdStore } from './discovery-kv-fixtures.js';

discoverySuite(etcdStore, 23610);
